// Issue 34.7: a call its caller cancels can become a background task instead of being killed, when the
// caller asked for that (the call's `_meta["dsh-tools/onCancel"]`, or `bash.onCancel: promote`); the
// task's reads start at the command's first byte (the cancelled result reached no one) and the model
// hears of the task on its next turn. Without the ask, a cancel kills as before.
import { createHost, type DshHost, type HostSession } from '../../../src/index.js';
import { localEnvironment, type EnvironmentOptions } from '../../../src/plugins/local.environment.js';
import { resolveBashToolConfig } from '../../../src/tools/bash/bash-config.js';
import { validateConfig } from '../../../src/plugins/config/config-file.js';
import { tempWorkspace } from '../../support/sandbox-test-kit.js';
import { processesWith, uniqueSleep, waitUntil, waitUntilGone } from '../../support/process-table.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const PROMOTE_ASK = { 'dsh-tools/onCancel': 'promote' };

describe('bash: promotion when the caller cancels', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let host: DshHost | undefined;

  async function open(options: EnvironmentOptions = {}): Promise<HostSession> {
    host = await createHost(...localEnvironment({ workspace: ws.dir, ...options, executor: { timeoutMs: 60_000, graceMs: 200 } }));
    return host.openSession({ cwd: ws.dir });
  }
  /** Starts `echo begun; sleep <marker>; echo finished` and cancels it once the sleep runs. */
  async function cancelled(session: HostSession, metadata: Record<string, string> = {}, args: Record<string, unknown> = {}) {
    const marker = uniqueSleep().replace(/^1000\./, '3.');
    const controller = new AbortController();
    const call = session.call('bash', { command: `echo begun; sleep ${marker}; echo finished`, description: 'Slow build', ...args }, { signal: controller.signal, metadata });
    await waitUntil(() => processesWith(marker).length > 0, 'the command runs');
    controller.abort();
    return { result: text(await call), marker };
  }
  beforeEach(() => void (ws = tempWorkspace('dsh-cancel-promotion-')));
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    ws.remove();
  });

  it('asked by the call: the command becomes a task, its reads start at its first byte, the next turn hears of it', async () => {
    const session = await open();
    const { result, marker } = await cancelled(session, PROMOTE_ASK);
    const moved = /\[still running after (\d+)ms: moved to background task (bash-\d+); read more with task_output, stop it with task_kill\]$/.exec(result);
    expect(moved).not.toBeNull();
    expect(processesWith(marker).length).toBeGreaterThan(0);
    const notices = session.takeNotices();
    expect(notices).toEqual([
      `[a bash call cancelled by the client after ${moved![1]}ms was moved to background task ${moved![2]} instead of being killed; read more with task_output, stop it with task_kill]`,
    ]);
    const read = text(await session.call('task_output', { task_id: moved![2]!, wait: true, timeout_ms: 30_000 }));
    expect(read).toBe('begun\nfinished\n[status: completed, exit code: 0]');
  });

  it('asked by the config (bash.onCancel: promote): the same; a call asking `kill` overrides it', async () => {
    const session = await open({ bash: { onCancel: 'promote' } });
    expect((await cancelled(session)).result).toMatch(/moved to background task bash-\d+/);
    const killed = await cancelled(session, { 'dsh-tools/onCancel': 'kill' });
    expect(killed.result).toBe('Error: tool call aborted');
    expect(await waitUntilGone(killed.marker)).toEqual([]);
  });

  it('not asked: a cancel kills the command as before, and no notice is queued', async () => {
    const session = await open();
    const { result, marker } = await cancelled(session);
    expect(result).toBe('Error: tool call aborted');
    expect(await waitUntilGone(marker)).toEqual([]);
    expect(session.takeNotices()).toEqual([]);
  });

  it('a timeout the model chose is a hard limit: a cancel kills even when promotion is asked', async () => {
    const session = await open();
    const { result, marker } = await cancelled(session, PROMOTE_ASK, { timeoutMs: 30_000 });
    expect(result).toBe('Error: tool call aborted');
    expect(await waitUntilGone(marker)).toEqual([]);
  });

  it('a refused task start (the session is at its task limit) kills on cancel', async () => {
    const session = await open({ tasks: { maxConcurrentTasksPerOwner: 1 } });
    const sleep = uniqueSleep();
    await session.call('bash', { command: `sleep ${sleep}`, description: 'Holds the task slot', run_in_background: true });
    const { result, marker } = await cancelled(session, PROMOTE_ASK);
    expect(result).toBe('Error: tool call aborted');
    expect(await waitUntilGone(marker)).toEqual([]);
  });
});

test('config: bash.onCancel is kill by default, promote or kill, nothing else', () => {
  expect(resolveBashToolConfig(undefined).onCancel).toBe('kill');
  expect(resolveBashToolConfig({ onCancel: 'promote' }).onCancel).toBe('promote');
  expect(() => resolveBashToolConfig({ onCancel: 'keep' as never })).toThrow('invalid bash tool config: onCancel must be "promote" or "kill", got "keep"');
  expect(() => validateConfig({ bash: { onCancel: 'later' } }, 'dsh.yaml')).toThrow(/^dsh\.yaml: bash\.onCancel: /);
});
