// A foreground call reaching its default timeout becomes a background task
// (bash.onTimeout: promote) when the session's task runtime admits one.
import { createHost, coreModule, envModule, shellModule, bashToolModule, type DshHost, type HostSession } from '../../../src/index.js';
import { plannerModule } from '../../../src/providers/policy/planner/planner.module.js';
import { localEnvironment, type EnvironmentOptions } from '../../../src/plugins/local.environment.js';
import { sandboxedEnvironment } from '../../../src/plugins/sandboxed.environment.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../support/bwrap.js';
import { resolveBashToolConfig } from '../../../src/tools/bash/bash-config.js';
import { validateConfig } from '../../../src/plugins/config/config-file.js';
import { tempWorkspace } from '../../support/sandbox-test-kit.js';
import { processesWith, survivors, uniqueSleep, waitUntil } from '../../support/process-table.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const TIMEOUT = 300;
const MOVED = new RegExp(
  `\\n?\\[still running after ${TIMEOUT}ms: moved to background task (bash-\\d+); read more with task_output, stop it with task_kill\\]$`,
);

describe('bash: promotion to a background task at the default timeout', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let host: DshHost | undefined;
  let session: HostSession;

  async function open(options: EnvironmentOptions = {}): Promise<HostSession> {
    host = await createHost(
      ...localEnvironment({ workspace: ws.dir, ...options, executor: { timeoutMs: TIMEOUT, graceMs: 200, ...options.executor } }),
    );
    session = host.openSession({ cwd: ws.dir });
    return session;
  }
  beforeEach(() => {
    ws = tempWorkspace('dsh-promotion-');
  });
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    ws.remove();
  });

  it('hands over without losing or repeating a byte: numbered lines every 10 ms across the boundary', async () => {
    await open();
    const command = 'for i in $(seq 1 80); do echo "line $i"; echo "err $i" >&2; sleep 0.01; done';
    const first = text(await session.call('bash', { command, description: 'Count slowly' }));
    const moved = MOVED.exec(first);
    expect(moved).not.toBeNull();
    expect(first).not.toMatch(/\[exit code|\[timed out|\[killed by signal/);
    const id = moved![1]!;

    const rest = text(await session.call('task_output', { task_id: id, wait: true, timeout_ms: 30_000 }));
    expect(rest).toMatch(/\n\[status: completed, exit code: 0\]$/);

    // Foreground part: stdout lines, then its [stderr] section; the task's reads continue each stream.
    const before = first.slice(0, moved!.index);
    const after = rest.slice(0, rest.lastIndexOf('\n['));
    const split = (part: string) => {
      const at = part.indexOf('[stderr]\n');
      return at === -1 ? { out: part, err: '' } : { out: part.slice(0, at), err: part.slice(at + '[stderr]\n'.length) };
    };
    const a = split(before);
    const b = split(after);
    const lines = (s: string) => s.split('\n').filter((line) => line !== '');
    const expected = (stem: string) => Array.from({ length: 80 }, (_, i) => `${stem} ${i + 1}`);
    expect([...lines(a.out), ...lines(b.out)]).toEqual(expected('line'));
    expect([...lines(a.err), ...lines(b.err)]).toEqual(expected('err'));
    expect(lines(a.out).length).toBeGreaterThan(0);
    expect(lines(b.out).length).toBeGreaterThan(0);
  });

  it('is a task like any other: task_list shows it, task_kill stops it and its processes', async () => {
    await open();
    const sleep = uniqueSleep();
    const first = text(await session.call('bash', { command: `echo started; sleep ${sleep}`, description: 'Sleep long' }));
    expect(first.startsWith('started\n[still running after')).toBe(true);
    const id = MOVED.exec(first)![1]!;
    expect(text(await session.call('task_list', {}))).toContain(`${id} [bash] running — Sleep long`);
    expect(processesWith(sleep).length).toBeGreaterThan(0);
    expect(text(await session.call('task_kill', { task_id: id }))).toContain(id);
    expect(await survivors(sleep)).toEqual([]);
    const output = text(await session.call('task_output', { task_id: id, wait: true }));
    expect(output).toMatch(/^\(no new output\)\n\[status: killed, signal: SIGTERM\]$/);
  });

  it('sends the completion notice when the moved command ends', async () => {
    await open();
    const first = text(await session.call('bash', { command: 'sleep 0.6; echo finished', description: 'Finish later' }));
    const id = MOVED.exec(first)![1]!;
    expect(first).toMatch(/^\(no output\)\n\[still running/);
    await waitUntil(() => session.takeNotices().some((notice) => notice.includes(`background task ${id}`) && notice.includes('completed')), 'the completion notice');
    expect(text(await session.call('task_output', { task_id: id }))).toBe('finished\n[status: completed, exit code: 0]');
  });

  it('keeps a timeoutMs given by the model a hard kill', async () => {
    await open();
    const sleep = uniqueSleep();
    const result = text(await session.call('bash', { command: `sleep ${sleep}`, description: 'Sleep', timeoutMs: TIMEOUT }));
    expect(result).toBe(`(no output)\n[timed out after ${TIMEOUT}ms]\n[killed by signal: SIGTERM]`);
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills when the task runtime is full, and says why it was not moved', async () => {
    await open({ tasks: { maxConcurrentTasksPerOwner: 1 } });
    const sleep = uniqueSleep();
    await session.call('bash', { command: `sleep ${sleep}`, description: 'Occupy the slot', run_in_background: true });
    const result = text(await session.call('bash', { command: `sleep ${sleep}`, description: 'Sleep' }));
    expect(result).toBe(
      '(no output)\n' +
        '[not moved to background: too many background tasks: this session already has 1 running (limit 1); ' +
        'stop one with task_kill or wait for one to finish, then retry]\n' +
        `[timed out after ${TIMEOUT}ms]\n[killed by signal: SIGTERM]`,
    );
  });

  it('kills when bash.onTimeout is kill', async () => {
    await open({ bash: { onTimeout: 'kill' } });
    const result = text(await session.call('bash', { command: `sleep ${uniqueSleep()}`, description: 'Sleep' }));
    expect(result).toBe(`(no output)\n[timed out after ${TIMEOUT}ms]\n[killed by signal: SIGTERM]`);
  });

  it('kills in a composition without a task runtime', async () => {
    host = await createHost(coreModule({ workspace: ws.dir }), envModule(), shellModule({ cwd: ws.dir, timeoutMs: TIMEOUT }), plannerModule(), bashToolModule());
    session = host.openSession({ cwd: ws.dir });
    const result = text(await session.call('bash', { command: `sleep ${uniqueSleep()}`, description: 'Sleep' }));
    expect(result).toBe(`(no output)\n[timed out after ${TIMEOUT}ms]\n[killed by signal: SIGTERM]`);
  });
});

describe('bash.onTimeout config', () => {
  it('defaults to promote and accepts kill', () => {
    expect(resolveBashToolConfig(undefined).onTimeout).toBe('promote');
    expect(resolveBashToolConfig({ onTimeout: 'kill' }).onTimeout).toBe('kill');
  });

  it('rejects anything else, in the provider config and in a config file', () => {
    expect(() => resolveBashToolConfig({ onTimeout: 'never' as never })).toThrow(
      'invalid bash tool config: onTimeout must be "promote" or "kill", got "never"',
    );
    expect(() => validateConfig({ bash: { onTimeout: 'wait' } }, 'dsh.yaml')).toThrow(
      'dsh.yaml: bash.onTimeout: expected one of promote, kill',
    );
  });
});

describe('bash: the timeoutMs argument', () => {
  it('refuses a fractional timeout below 1 ms with a clear error', async () => {
    const ws = tempWorkspace('dsh-timeout-arg-');
    const host = await createHost(...localEnvironment({ workspace: ws.dir }));
    try {
      const result = await host.openSession({ cwd: ws.dir }).call('bash', { command: 'true', description: 'Nothing', timeoutMs: 0.5 });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('Error: invalid timeoutMs: expected at least 1 millisecond, got 0.5');
    } finally {
      await host.dispose();
      ws.remove();
    }
  });
});

describeWithBwrap(`bash: promotion under the bwrap sandbox${NEEDS_BWRAP}`, () => {
  it('moves a confined command to a background task and keeps reading it', async () => {
    const ws = tempWorkspace('dsh-promotion-sandbox-');
    const host = await createHost(...sandboxedEnvironment({ workspace: ws.dir, executor: { timeoutMs: TIMEOUT, graceMs: 200 } }));
    try {
      const session = host.openSession({ cwd: ws.dir });
      const first = text(await session.call('bash', { command: 'echo one; sleep 0.6; echo two', description: 'Two steps' }));
      const moved = MOVED.exec(first);
      expect(first.startsWith('one\n[still running after')).toBe(true);
      const rest = text(await session.call('task_output', { task_id: moved![1]!, wait: true, timeout_ms: 30_000 }));
      expect(rest).toBe('two\n[status: completed, exit code: 0]');
    } finally {
      await host.dispose();
      ws.remove();
    }
  });
});
