import { ExecutorPool, processesWith, runCommand, survivors, uniqueSleep, pollUntil } from '../../../support/shell-test-kit.js';

describe('LocalShellExecutor.run: timeout, abort and leftovers', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('times out a TERM-trapping command that then exits 0: timedOut, exit 0, no signal', async () => {
    const sleep = uniqueSleep();
    const executor = pool.make({ graceMs: 10_000 });
    const result = await runCommand(executor, {
      command: `trap "echo trapped; exit 0" TERM; echo started; sleep ${sleep} & wait`,
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ timedOut: true, aborted: false, exitCode: 0, signal: null, timeoutMs: 300 });
    expect(result.stdout).toBe('started\ntrapped\n');
    expect(await survivors(sleep)).toEqual([]);
  });

  it('escalates to SIGKILL after graceMs when the command ignores SIGTERM', async () => {
    const sleep = uniqueSleep();
    const executor = pool.make({ graceMs: 200 });
    const result = await runCommand(executor, {
      command: `trap "" TERM; echo ready; while :; do sleep ${sleep} & wait; done`,
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ timedOut: true, aborted: false, exitCode: null, signal: 'SIGKILL' });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('leaves no background child behind after a timeout', async () => {
    const sleep = uniqueSleep();
    const result = await runCommand(pool.make({ graceMs: 500 }), {
      command: `sleep ${sleep} & sleep ${sleep} >/dev/null 2>&1 & sleep ${sleep}`,
      timeoutMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(await survivors(sleep)).toEqual([]);
  });

  it('resolves a caller abort mid-run with aborted (not timedOut) and leaves nothing behind', async () => {
    const sleep = uniqueSleep();
    const controller = new AbortController();
    const running = runCommand(
      pool.make(),
      { command: `echo go; sleep ${sleep} & sleep ${sleep}`, timeoutMs: 60_000 },
      { signal: controller.signal },
    );
    // Abort once the command has demonstrably started its children.
    expect(await pollUntil(() => processesWith(sleep).length >= 2)).toBe(true);
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ aborted: true, timedOut: false, exitCode: null, signal: 'SIGTERM' });
    expect(result.stdout).toBe('go\n');
    expect(await survivors(sleep)).toEqual([]);
  });

  it('keeps the first stop reason: an abort during the timeout grace leaves it timedOut, not aborted', async () => {
    const sleep = uniqueSleep();
    const controller = new AbortController();
    let trapped = false;
    const running = runCommand(
      pool.make({ graceMs: 500 }),
      { command: `trap "echo trapped" TERM; while :; do sleep ${sleep} & wait; done`, timeoutMs: 200 },
      { signal: controller.signal, onProgress: (progress) => (trapped ||= progress.lastLine === 'trapped') },
    );
    // The timeout's SIGTERM has been handled; the group is now inside its grace period.
    expect(await pollUntil(() => trapped)).toBe(true);
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ timedOut: true, aborted: false, exitCode: null, signal: 'SIGKILL' });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('resolves a run cut short by dispose() with neither timedOut nor aborted, leaving nothing behind', async () => {
    const sleep = uniqueSleep();
    const executor = pool.make();
    const running = runCommand(executor, { command: `sleep ${sleep} & sleep ${sleep}`, timeoutMs: 60_000 });
    expect(await pollUntil(() => processesWith(sleep).length >= 2)).toBe(true);
    await executor.dispose();
    expect(await running).toMatchObject({ timedOut: false, aborted: false, exitCode: null, signal: 'SIGTERM' });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('rejects a pre-aborted signal without spawning anything', async () => {
    const sleep = uniqueSleep();
    const controller = new AbortController();
    controller.abort();
    await expect(
      runCommand(pool.make(), `sleep ${sleep}`, { signal: controller.signal }),
    ).rejects.toThrow('command aborted before it started');
    expect(processesWith(sleep)).toEqual([]);
  });

  it('does not wait for a background child holding the output pipe, and kills it', async () => {
    const sleep = uniqueSleep();
    const result = await runCommand(pool.make(), `sleep ${sleep} & echo hi`);
    expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false, stdout: 'hi\n' });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills background children that detached from the pipes once the command exits', async () => {
    const sleep = uniqueSleep();
    const result = await runCommand(pool.make(), `sleep ${sleep} >/dev/null 2>&1 & echo done`);
    expect(result.stdout).toBe('done\n');
    expect(await survivors(sleep)).toEqual([]);
  });

  it('keeps output a background child writes before the leader exits', async () => {
    const result = await runCommand(pool.make(), '(echo from-child) & wait; echo from-leader');
    expect(result.stdout).toBe('from-child\nfrom-leader\n');
  });

  it('finishes and kills a descendant that left the group (own session) and holds the pipe', async () => {
    const sleep = uniqueSleep();
    const result = await runCommand(pool.make(), `setsid sleep ${sleep} & echo hi`);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'hi\n', timedOut: false, leftoversKilled: 1 });
    expect(await survivors(sleep)).toEqual([]);
  });
});
