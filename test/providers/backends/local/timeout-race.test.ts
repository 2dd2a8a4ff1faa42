import { ExecutorPool, runCommand } from '../../../support/shell-test-kit.js';

describe('LocalShellExecutor.run: a command finishing at its timeout', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('reports a command that exited before the timer ran as finished, never as timed out', async () => {
    const executor = pool.make();
    const contradictions: string[] = [];
    let finished = 0;
    // Timeouts around what the command takes on this machine now, so a loaded machine still sees both outcomes.
    const took = (await runCommand(executor, { command: 'sleep 0.05; echo done' })).durationMs;
    const around = Math.max(50, Math.round(took) - 5);
    for (let run = 0; run < 40; run++) {
      const timeoutMs = around + (run % 10);
      const result = await runCommand(executor, { command: 'sleep 0.05; echo done', timeoutMs });
      // A command that printed `done` and exited 0 ended on its own: a timeout may only be a kill.
      if (result.timedOut && result.signal === null) {
        contradictions.push(`${timeoutMs}ms: timed out with ${JSON.stringify(result.stdout)} and exit ${result.exitCode}`);
      }
      if (!result.timedOut) {
        expect(result).toMatchObject({ stdout: 'done\n', exitCode: 0, signal: null });
        finished++;
      }
    }
    expect(contradictions).toEqual([]);
    expect(finished).toBeGreaterThan(0);
  });

  it.each([0.5, 0.999, 1e-9])('rejects a timeout below 1 ms (%p) with a clear error', (timeoutMs) => {
    const executor = pool.make();
    expect(() => executor.checkRequest({ command: 'true', timeoutMs })).toThrow(
      `invalid timeoutMs: expected at least 1 millisecond, got ${timeoutMs}`,
    );
  });

  it('accepts exactly 1 ms', () => {
    expect(pool.make().checkRequest({ command: 'true', timeoutMs: 1 }).timeoutMs).toBe(1);
  });
});
