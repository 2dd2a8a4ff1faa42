// Issue 23 item 7: one composition offers the one-shot and the persistent
// shell together under distinct names, and shows the task tools (and their
// prompt section) only when something can start a task.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment, type DshHost, type EnvironmentOptions } from '../../src/index.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describe('shell: both, oneshot, persistent', () => {
  let root: string;
  const hosts: DshHost[] = [];
  const compose = async (options: EnvironmentOptions): Promise<DshHost> => {
    const host = await createHost(...localEnvironment({ workspace: root, ...options }));
    hosts.push(host);
    return host;
  };
  const listing = (host: DshHost) => ({
    tools: host.prompt().tools.map((tool) => tool.name),
    sections: host.prompt().sections.map((section) => section.name),
  });
  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-texts-both-')));
  });
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.dispose()));
    rmSync(root, { recursive: true, force: true });
  });

  it('both: lists bash, bash_persistent and the task tools, with one tool:bash section and the persistent one naming its tool', async () => {
    const host = await compose({ shell: 'both' });
    expect(listing(host)).toEqual({
      tools: ['bash', 'bash_persistent', 'task_kill', 'task_list', 'task_output'],
      sections: ['tool:bash', 'tool:bash-persistent', 'tool:tasks'],
    });
    const persistent = host.prompt().sections.find((section) => section.name === 'tool:bash-persistent')!;
    expect(persistent.text).toContain("your next bash_persistent call's text is sent to that command as input");
    expect(host.prompt().tools.find((tool) => tool.name === 'bash_persistent')!.inputSchema).toMatchObject({
      properties: { command: expect.anything(), restart: expect.anything() },
    });
  });

  it('both: a call to each shell runs there (the persistent one keeps its cd), and a task started by bash is read by task_output', async () => {
    const host = await compose({ shell: 'both' });
    const session = host.openSession({ cwd: root });
    try {
      expect(text(await session.call('bash_persistent', { command: 'cd /tmp && export KEPT=yes' }))).toBe('(no output)');
      expect(text(await session.call('bash_persistent', { command: 'pwd; echo $KEPT' }))).toBe('/tmp\nyes');
      expect(text(await session.call('bash', { command: 'pwd; echo ${KEPT:-unset}', description: 'Where' }))).toBe(`${root}\nunset`);
      const started = text(await session.call('bash', { command: 'echo from-task', description: 'Task', run_in_background: true }));
      const id = /^started background task (\S+)$/.exec(started)?.[1];
      expect(text(await session.call('task_output', { task_id: id!, wait: true, timeout_ms: 10_000 }))).toBe(
        'from-task\n[status: completed, exit code: 0]',
      );
    } finally {
      await session.dispose();
    }
  });

  it('takes other names from toolNames, and refuses two shells of one name', async () => {
    const host = await compose({ shell: 'both', toolNames: { oneshot: 'run', persistent: 'shell' } });
    expect(listing(host).tools).toEqual(['run', 'shell', 'task_kill', 'task_list', 'task_output']);
    expect(host.prompt().sections.find((section) => section.name === 'tool:bash')!.tool).toBe('run');
    const session = host.openSession({ cwd: root });
    try {
      expect(text(await session.call('shell', { command: 'echo persistent' }))).toBe('persistent');
      expect(text(await session.call('run', { command: 'echo oneshot', description: 'Echo' }))).toBe('oneshot');
    } finally {
      await session.dispose();
    }
    expect(() => localEnvironment({ shell: 'both', toolNames: { persistent: 'bash' } })).toThrow(
      'invalid shell tool names: both shells are named "bash"',
    );
    expect(() => localEnvironment({ shell: 'both', toolNames: { oneshot: 'has space' } })).toThrow(
      'invalid one-shot shell tool name "has space": expected 1-64 letters, digits, _ or -',
    );
    expect(() => localEnvironment({ shell: 'all' as never })).toThrow('invalid shell "all": expected oneshot, persistent or both');
  });

  it('persistent only: no task tools and no tasks section, the persistent shell keeps the name bash', async () => {
    const host = await compose({ shell: 'persistent' });
    expect(listing(host)).toEqual({ tools: ['bash'], sections: ['tool:bash', 'tool:bash-persistent'] });
    const result = await host.openSession({ cwd: root }).call('task_list', {});
    expect(text(result)).toBe('Error: unknown tool "task_list"');
  });

  it('one-shot that can start no task (no background runs, no promotion): no task tools; the default keeps them', async () => {
    const none = await compose({ bash: { enableRunInBackground: false, onTimeout: 'kill' } });
    expect(listing(none)).toEqual({ tools: ['bash'], sections: ['tool:bash'] });
    const promoting = await compose({ bash: { enableRunInBackground: false } });
    expect(listing(promoting).tools).toEqual(['bash', 'task_kill', 'task_list', 'task_output']);
    expect(listing(await compose({})).sections).toEqual(['tool:bash', 'tool:tasks']);
  });
});
