// Issue 34.7: a call still running at bash.promoteAfterMs (default 50 s,
// before the 60 s most MCP clients wait) is moved to a background task then,
// not only at its timeout; calls that end in time keep their exact texts.
import { createHost, type DshHost, type HostSession } from '../../../src/index.js';
import { localEnvironment, type EnvironmentOptions } from '../../../src/plugins/local.environment.js';
import { DEFAULT_PROMOTE_AFTER_MS, resolveBashToolConfig } from '../../../src/tools/bash/bash-config.js';
import { validateConfig } from '../../../src/plugins/config/config-file.js';
import { tempWorkspace } from '../../support/sandbox-test-kit.js';
import { processesWith, uniqueSleep, waitUntil } from '../../support/process-table.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const PROMOTE = 300;
const TIMEOUT = 60_000;

describe('bash: early promotion at bash.promoteAfterMs', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let host: DshHost | undefined;

  async function open(options: EnvironmentOptions = {}): Promise<HostSession> {
    host = await createHost(
      ...localEnvironment({ workspace: ws.dir, bash: { promoteAfterMs: PROMOTE }, ...options, executor: { timeoutMs: TIMEOUT, graceMs: 200 } }),
    );
    return host.openSession({ cwd: ws.dir });
  }
  beforeEach(() => void (ws = tempWorkspace('dsh-early-promotion-')));
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    ws.remove();
  });

  it('a call still running at the promotion time becomes a task then, the result says how to read it, and the task ends normally', async () => {
    const session = await open();
    const marker = uniqueSleep().replace(/^1000\./, '2.');
    const first = text(await session.call('bash', { command: `echo started; sleep ${marker}; echo done`, description: 'Slow' }));
    const moved = /^started\n\[still running after 300ms: moved to background task (bash-\d+); read more with task_output, stop it with task_kill\]$/.exec(first);
    expect(moved).not.toBeNull();
    expect(processesWith(marker).length).toBeGreaterThan(0);
    const rest = text(await session.call('task_output', { task_id: moved![1]!, wait: true, timeout_ms: 30_000 }));
    expect(rest).toMatch(/^done\n\[status: completed, exit code: 0\]$/);
  });

  it('a call that ends before the promotion time keeps its exact text', async () => {
    const session = await open();
    expect(text(await session.call('bash', { command: 'echo quick', description: 'Quick' }))).toBe('quick');
    expect(text(await session.call('bash', { command: 'exit 3', description: 'Fails' }))).toBe('(no output)\n[exit code: 3]');
  });

  it('a timeout the model chose is a hard limit: no early promotion, the call times out', async () => {
    const session = await open();
    const result = text(await session.call('bash', { command: `sleep ${uniqueSleep()}`, description: 'Bounded', timeoutMs: 1000 }));
    expect(result).toMatch(/\[timed out after 1000ms\]/);
    expect(result).not.toMatch(/moved to background task/);
  });

  it('promoteAfterMs 0 or onTimeout kill: the call waits for its end as before', async () => {
    for (const bash of [{ promoteAfterMs: 0 }, { onTimeout: 'kill' as const }]) {
      const session = await open({ bash });
      const result = text(await session.call('bash', { command: 'sleep 0.8; echo waited', description: 'Waits' }));
      expect(result).toBe('waited');
      await host!.dispose();
      host = undefined;
    }
  });

  it('a refused task start at the promotion time lets the call run on (here to its end)', async () => {
    const session = await open({ tasks: { maxConcurrentTasksPerOwner: 1 } });
    const sleep = uniqueSleep();
    await session.call('bash', { command: `sleep ${sleep}`, description: 'Holds the task slot', run_in_background: true });
    await waitUntil(() => processesWith(sleep).length > 0, 'the task runs');
    expect(text(await session.call('bash', { command: 'sleep 0.8; echo ran on', description: 'Waits' }))).toBe('ran on');
  });
});

test('config: default 50 s, 0 allowed, a negative or fractional value refused', () => {
  expect(resolveBashToolConfig(undefined).promoteAfterMs).toBe(DEFAULT_PROMOTE_AFTER_MS);
  expect(DEFAULT_PROMOTE_AFTER_MS).toBe(50_000);
  expect(resolveBashToolConfig({ promoteAfterMs: 0 }).promoteAfterMs).toBe(0);
  expect(() => resolveBashToolConfig({ promoteAfterMs: -1 })).toThrow("invalid bash tool config: promoteAfterMs must be 0 or a positive number of milliseconds, got -1");
  expect(() => validateConfig({ bash: { promoteAfterMs: 1.5 } }, 'dsh.yaml')).toThrow('dsh.yaml: bash.promoteAfterMs: expected 0 or a positive integer');
});
