import { ExecutorPool, pollUntil, runCommand, survivors, uniqueSleep } from '../../../support/shell-test-kit.js';
import { sleepsRunning } from '../../../support/process-table.js';

/** Each way a process can leave its command's process group, detached from the output pipes. */
const ESCAPES: ReadonlyArray<readonly [string, (sleep: string) => string]> = [
  ['setsid', (s) => `setsid sleep ${s} >/dev/null 2>&1 &`],
  ['a set -m background job', (s) => `set -m; sleep ${s} >/dev/null 2>&1 &`],
  ['setpgid (setpgrp)', (s) => `perl -e 'setpgrp(0, 0); exec "sleep", $ARGV[0]' ${s} >/dev/null 2>&1 &`],
  ['nohup … &', (s) => `nohup sleep ${s} >/dev/null 2>&1 &`],
  ['disown', (s) => `sleep ${s} >/dev/null 2>&1 & disown;`],
  ['setsid holding the output pipe', (s) => `setsid sleep ${s} &`],
];

describe('LocalShellExecutor: processes a command leaves behind are found, killed and counted', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it.each(ESCAPES)('kills a process that escaped via %s, and counts it', async (_how, escape) => {
    const sleep = uniqueSleep();
    const result = await runCommand(pool.make(), `${escape(sleep)} echo done`);
    expect(result).toMatchObject({ stdout: 'done\n', exitCode: 0, leftoversKilled: 1 });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills a double-forked daemon (its parent exited at once)', async () => {
    const sleep = uniqueSleep();
    const result = await runCommand(pool.make(), `( (setsid sleep ${sleep} >/dev/null 2>&1 &) & ); echo done`);
    expect(result.stdout).toBe('done\n');
    // The intermediate shells may or may not have exited yet: at least the daemon's line of descent died.
    expect(result.leftoversKilled).toBeGreaterThanOrEqual(1);
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills every process of an escaped tree, and counts each one', async () => {
    const sleep = uniqueSleep();
    const result = await runCommand(
      pool.make(),
      `setsid bash -c 'sleep ${sleep} & sleep ${sleep} & wait' >/dev/null 2>&1 & ` +
        `until [ "$(pgrep -fc "^sleep ${sleep}$")" = 2 ]; do sleep 0.01; done; echo ready`,
    );
    expect(result).toMatchObject({ stdout: 'ready\n', exitCode: 0, leftoversKilled: 3 });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('reports nothing when the command left nothing behind', async () => {
    const result = await runCommand(pool.make(), '(echo child) & wait; echo done');
    expect(result.stdout).toBe('child\ndone\n');
    expect(result.leftoversKilled).toBeUndefined();
  });

  it('kills an escapee of a command stopped by its timeout', async () => {
    const sleep = uniqueSleep();
    const result = await runCommand(pool.make(), {
      command: `setsid sleep ${sleep} >/dev/null 2>&1 & sleep ${sleep}`,
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGTERM', leftoversKilled: 1 });
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kills the escapees of a run cut short by dispose()', async () => {
    const sleep = uniqueSleep();
    const executor = pool.make();
    const running = runCommand(executor, `setsid sleep ${sleep} >/dev/null 2>&1 & nohup sleep ${sleep} >/dev/null 2>&1 & sleep ${sleep}`);
    expect(await pollUntil(() => sleepsRunning(sleep).length === 3)).toBe(true);
    await executor.dispose();
    const result = await running;
    expect(result.signal).toBe('SIGTERM');
    expect(await survivors(sleep)).toEqual([]);
  });

  it('does not touch another call’s processes', async () => {
    const executor = pool.make();
    const other = uniqueSleep();
    const background = await executor.start(executor.checkRequest({ command: `setsid sleep ${other} >/dev/null 2>&1 & sleep ${other}` }));
    expect(await pollUntil(() => sleepsRunning(other).length === 2)).toBe(true);
    const sleep = uniqueSleep();
    const result = await runCommand(executor, `setsid sleep ${sleep} >/dev/null 2>&1 & echo done`);
    expect(result.leftoversKilled).toBe(1);
    expect(sleepsRunning(other)).toHaveLength(2);
    await background.kill();
    expect(await survivors(other)).toEqual([]);
  });
});

describe('LocalShellExecutor.start: a background task’s leftovers', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('kills them when the task ends on its own, and says so at the end of its last read', async () => {
    const sleep = uniqueSleep();
    const executor = pool.make();
    const handle = await executor.start(executor.checkRequest({ command: `setsid sleep ${sleep} >/dev/null 2>&1 & echo started` }));
    expect(await handle.done).toEqual({ exitCode: 0, signal: null });
    expect(await survivors(sleep)).toEqual([]);
    expect(handle.readOutput().text).toBe(
      'started\n[killed 1 leftover process when the command ended; use run_in_background to keep one running]\n',
    );
    expect(handle.readOutput().text).toBe('');
  });

  it('kills them when the task is killed', async () => {
    const sleep = uniqueSleep();
    const executor = pool.make();
    const handle = await executor.start(
      executor.checkRequest({ command: `setsid sleep ${sleep} >/dev/null 2>&1 & setsid sleep ${sleep} >/dev/null 2>&1 & sleep ${sleep}` }),
    );
    // Both escapees must have become sleeps: a fork still in bash's group would die with it, uncounted.
    expect(await pollUntil(() => sleepsRunning(sleep).length === 3)).toBe(true);
    expect(await handle.kill()).toBe(true);
    expect(await survivors(sleep)).toEqual([]);
    expect(handle.readOutput().text).toContain('[killed 2 leftover processes when the command ended;');
  });
});
