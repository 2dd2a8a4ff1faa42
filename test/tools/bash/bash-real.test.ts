// The one-shot bash tool end to end on real processes, through the host.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment, type DshHost } from '../../../src/index.js';
import { processesWith, uniqueSleep, waitUntilGone, waitUntilRunning } from '../../support/process-table.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describe('bash on real processes', () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-bash-')));
    host = await createHost(...localEnvironment({ workspace: root, executor: { graceMs: 200 } }));
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs each session in its own cwd', async () => {
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    await host.call('bash', { command: `mkdir -p ${a} ${b}`, description: 'Make two directories' });
    const one = host.openSession({ cwd: a });
    const two = host.openSession({ cwd: b });
    try {
      const [ra, rb] = await Promise.all([
        one.call('bash', { command: 'pwd', description: 'Show the directory' }),
        two.call('bash', { command: 'pwd', description: 'Show the directory' }),
      ]);
      expect(text(ra)).toBe(a);
      expect(text(rb)).toBe(b);
    } finally {
      await Promise.all([one.dispose(), two.dispose()]);
    }
  });

  it('scrubs credentials and replaces a stale DSH_SESSION_ID', async () => {
    process.env.MY_API_TOKEN = 'secret-value';
    process.env.DSH_SESSION_ID = 'stale-parent-id';
    const session = host.openSession({ id: 'fresh-id', cwd: root });
    try {
      const result = await session.call('bash', {
        command: 'echo "token=${MY_API_TOKEN:-absent} id=$DSH_SESSION_ID shell=$DSH_SHELL"',
        description: 'Show the environment',
      });
      expect(text(result)).toBe('token=absent id=fresh-id shell=1');
      expect(process.env.DSH_SESSION_ID).toBe('stale-parent-id');
    } finally {
      delete process.env.MY_API_TOKEN;
      delete process.env.DSH_SESSION_ID;
      await session.dispose();
    }
  });

  it('leaves no process behind after a timeout', async () => {
    const sleep = uniqueSleep();
    const result = await host.call('bash', {
      command: `sleep ${sleep} & sleep ${sleep}`,
      description: 'Sleep past the timeout',
      timeoutMs: 300,
    });
    expect(text(result)).toMatch(/\[timed out after 300ms\]\n\[killed by signal: SIGTERM\]$/);
    expect(await waitUntilGone(sleep)).toEqual([]);
  });

  it('answers an abort with the abort error and leaves no process behind', async () => {
    const sleep = uniqueSleep();
    const controller = new AbortController();
    const call = host.call(
      'bash',
      { command: `sleep ${sleep} & sleep ${sleep}`, description: 'Sleep until aborted' },
      { signal: controller.signal },
    );
    expect((await waitUntilRunning(sleep)).length).toBeGreaterThan(0);
    controller.abort();
    expect(await call).toEqual({ content: [{ type: 'text', text: 'Error: tool call aborted' }], isError: true });
    expect(await waitUntilGone(sleep)).toEqual([]);
  });

  it('reports progress while a command runs', async () => {
    const seen: { bytes: number; lastLine?: string }[] = [];
    await host.call(
      'bash',
      { command: 'for i in 1 2 3 4; do echo line-$i; sleep 0.2; done', description: 'Print slowly' },
      { onProgress: (progress) => seen.push(progress) },
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)!.lastLine).toMatch(/^line-\d$/);
    expect(seen.at(-1)!.bytes).toBeGreaterThan(0);
  });

  it('runs a background task to completion through the task tools', async () => {
    const session = host.openSession({ cwd: root });
    try {
      const started = await session.call('bash', {
        command: 'sleep 1; echo done',
        description: 'Finish after a second',
        run_in_background: true,
      });
      const id = (started.value as { taskId: string }).taskId;
      expect(text(started)).toBe(`started background task ${id}`);
      expect(text(await session.call('task_list', {}))).toBe(`${id} [bash] running — Finish after a second`);
      const output = await session.call('task_output', { task_id: id, wait: true });
      expect(text(output)).toBe('done\n[status: completed, exit code: 0]');
      expect(session.takeNotices()).toEqual([]);
    } finally {
      await session.dispose();
    }
  });

  it('kills a session’s background tasks when the session is disposed', async () => {
    const sleep = uniqueSleep();
    const session = host.openSession({ cwd: root });
    await session.call('bash', { command: `sleep ${sleep}`, description: 'Sleep in background', run_in_background: true });
    expect((await waitUntilRunning(sleep)).length).toBeGreaterThan(0);
    await session.dispose();
    expect(processesWith(sleep)).toEqual([]);
  });
});
