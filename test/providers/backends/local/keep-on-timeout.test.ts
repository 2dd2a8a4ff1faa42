import { ExecutorPool, pollUntil, processesWith, runCommand, survivors, uniqueSleep } from '../../../support/shell-test-kit.js';

describe('LocalShellExecutor.run: keepOnTimeout hands the running command over', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('resolves at the timeout with the output so far and a live continuation the call’s abort no longer reaches', async () => {
    const controller = new AbortController();
    let asked = 0;
    const result = await runCommand(
      pool.make(),
      { command: "trap 'echo got-TERM' TERM; echo before; for i in 1 2 3 4 5 6; do sleep 0.1; done; echo finished", timeoutMs: 150 },
      { signal: controller.signal, keepOnTimeout: () => ++asked > 0 },
    );
    expect(asked).toBe(1);
    expect(result).toMatchObject({ stdout: 'before\n', exitCode: null, signal: null, timedOut: false, aborted: false });
    const continuation = result.continuation!;
    expect(continuation.finished).toBe(false);
    controller.abort();
    expect(await continuation.done).toEqual({ exitCode: 0, signal: null });
    expect(continuation.readOutput().text).toBe('finished\n');
  });

  it('lets the continuation be killed with everything it started', async () => {
    const sleep = uniqueSleep();
    const result = await runCommand(pool.make(), { command: `sleep ${sleep}`, timeoutMs: 150 }, { keepOnTimeout: () => true });
    expect(await pollUntil(() => processesWith(sleep).length > 0)).toBe(true);
    expect(await result.continuation!.kill()).toBe(true);
    expect(await result.continuation!.done).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('stops the command as usual when keepOnTimeout answers false', async () => {
    const sleep = uniqueSleep();
    const result = await runCommand(pool.make(), { command: `sleep ${sleep}`, timeoutMs: 200 }, { keepOnTimeout: () => false });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGTERM' });
    expect(result.continuation).toBeUndefined();
    expect(await survivors(sleep)).toEqual([]);
  });

  it('is never asked when the command ends before its timeout', async () => {
    let asked = false;
    const result = await runCommand(pool.make(), { command: 'echo quick', timeoutMs: 5_000 }, { keepOnTimeout: () => (asked = true) });
    expect(result).toMatchObject({ stdout: 'quick\n', exitCode: 0 });
    expect(asked).toBe(false);
  });
});
