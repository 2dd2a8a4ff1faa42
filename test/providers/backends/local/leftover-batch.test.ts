// Reaps that end in the same tick share one /proc pass: each carrier is
// still killed, and counted for its own call only.
import { spawn } from 'node:child_process';
import { LeftoverReaper, newestPid, newProcessTag, PROCESS_TAG_VARIABLE } from '../../../../src/providers/exec/process/leftover-reaper.js';
import { ExecutorPool, pollUntil, processesWith, runCommand, survivors, uniqueSleep } from '../../../support/shell-test-kit.js';
import { sleepsRunning } from '../../../support/process-table.js';

/** Starts `sleep <duration>` in a session of its own (as `setsid` would) with `tag` in its environment. */
function tagged(tag: string, duration: string): void {
  const child = spawn('sleep', [duration], {
    env: { ...process.env, [PROCESS_TAG_VARIABLE]: tag },
    stdio: 'ignore',
    detached: true,
  });
  child.unref();
}

/** Reaps every reaper in one tick; resolves with their counts once all are done. */
function reapTogether(reapers: LeftoverReaper[]): Promise<number[]> {
  return Promise.all(reapers.map((reaper) => new Promise<number>((resolve) => reaper.reap(() => resolve(reaper.count)))));
}

describe('LeftoverReaper: reaps of the same tick share one /proc pass', () => {
  it('kills every carrier of each tag and counts it for that tag alone', async () => {
    const since = newestPid()!;
    const sleeps = Array.from({ length: 20 }, () => uniqueSleep());
    const tags = sleeps.map(() => newProcessTag());
    // Tag i has i % 3 + 1 carriers.
    sleeps.forEach((sleep, i) => {
      for (let n = 0; n <= i % 3; n++) tagged(tags[i]!, sleep);
    });
    expect(await pollUntil(() => sleeps.every((sleep, i) => processesWith(sleep).length === (i % 3) + 1))).toBe(true);
    const counts = await reapTogether(tags.map((tag) => new LeftoverReaper(tag, since)));
    expect(counts).toEqual(sleeps.map((_, i) => (i % 3) + 1));
    for (const sleep of sleeps) expect(await survivors(sleep)).toEqual([]);
  });

  it('does not take a tag for another one it is a prefix of', async () => {
    const since = newestPid()!;
    const short = newProcessTag();
    const long = `${short}2`;
    const [shortSleep, longSleep] = [uniqueSleep(), uniqueSleep()];
    tagged(short, shortSleep);
    tagged(long, longSleep);
    tagged(long, longSleep);
    expect(await pollUntil(() => processesWith(shortSleep).length === 1 && processesWith(longSleep).length === 2)).toBe(true);
    expect(await reapTogether([new LeftoverReaper(short, since), new LeftoverReaper(long, since)])).toEqual([1, 2]);
    expect(await survivors(shortSleep)).toEqual([]);
    expect(await survivors(longSleep)).toEqual([]);
  });

  it('leaves a process alone whose tag only starts with the reaped one', async () => {
    const since = newestPid()!;
    const short = newProcessTag();
    const sleep = uniqueSleep();
    tagged(`${short}0`, sleep);
    expect(await pollUntil(() => processesWith(sleep).length === 1)).toBe(true);
    expect(await reapTogether([new LeftoverReaper(short, since)])).toEqual([0]);
    expect(processesWith(sleep)).toHaveLength(1);
    expect(await reapTogether([new LeftoverReaper(`${short}0`, since)])).toEqual([1]);
    expect(await survivors(sleep)).toEqual([]);
  });

  it('answers at once, without a scan, when no pid was handed out since the leader', () => {
    const reaper = new LeftoverReaper(newProcessTag(), newestPid()!);
    let done = false;
    reaper.reap(() => (done = true));
    // Another process on the machine may have started meanwhile: then the answer comes with the next pass.
    if (newestPid() === reaper.sincePid) expect(done).toBe(true);
  });
});

describe('LocalShellExecutor: many commands ending together', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('kills the setsid daemon each of 20 concurrent commands leaves, each counted by its own command', async () => {
    const executor = pool.make();
    const sleeps = Array.from({ length: 20 }, () => uniqueSleep());
    const results = await Promise.all(
      sleeps.map((sleep, i) => runCommand(executor, `setsid sleep ${sleep} >/dev/null 2>&1 & echo ${i}`)),
    );
    results.forEach((result, i) => expect(result).toMatchObject({ stdout: `${i}\n`, exitCode: 0, leftoversKilled: 1 }));
    for (const sleep of sleeps) expect(await survivors(sleep)).toEqual([]);
  });

  it('kills the daemons of 20 background tasks killed together, each counted by its own task', async () => {
    const executor = pool.make();
    const sleeps = Array.from({ length: 20 }, () => uniqueSleep());
    const handles = await Promise.all(
      sleeps.map((sleep) => executor.start(executor.checkRequest({ command: `setsid sleep ${sleep} >/dev/null 2>&1 & sleep ${sleep}` }))),
    );
    expect(await pollUntil(() => sleeps.every((sleep) => sleepsRunning(sleep).length === 2))).toBe(true);
    expect(await Promise.all(handles.map((handle) => handle.kill()))).toEqual(sleeps.map(() => true));
    for (const handle of handles) expect(handle.readOutput().text).toContain('[killed 1 leftover process when the command ended;');
    for (const sleep of sleeps) expect(await survivors(sleep)).toEqual([]);
  });
});
