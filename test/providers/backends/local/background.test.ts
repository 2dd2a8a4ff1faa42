import fs from 'node:fs';
import { handMade } from '../../../support/hand-made-spec.js';
import os from 'node:os';
import path from 'node:path';
import { CapturedBackgroundProcess } from '../../../../src/providers/exec/shell/captured-background-process.js';
import type { BackgroundProcess } from '../../../../src/providers/exec/shell/shell-executor.js';
import { ExecutorPool, pollUntil, processesWith, survivors, uniqueSleep } from '../../../support/shell-test-kit.js';

/** Reads until `predicate` holds for the accumulated text (bounded). */
async function readUntil(handle: BackgroundProcess, predicate: (all: string) => boolean): Promise<string[]> {
  const reads: string[] = [];
  await pollUntil(() => {
    const delta = handle.readOutput();
    if (delta.text !== '') reads.push(delta.text);
    return predicate(reads.join(''));
  });
  return reads;
}

describe('LocalShellExecutor.start: background processes', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('returns a live handle at once; reads are consuming deltas', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shell-bg-'));
    const go = path.join(dir, 'go');
    try {
      const executor = pool.make();
      const handle = await executor.start(
        executor.checkRequest({ command: `echo one; while [ ! -e ${go} ]; do sleep 0.01; done; echo two` }),
      );
      expect(handle.finished).toBe(false);
      expect(handle.pid).toBeGreaterThan(0);

      const first = await readUntil(handle, (all) => all.includes('one\n'));
      expect(first.join('')).toBe('one\n');
      expect(handle.readOutput()).toEqual({ text: '', lost: false, spillPaths: [] });

      fs.writeFileSync(go, '');
      expect(await handle.done).toEqual({ exitCode: 0, signal: null });
      expect(handle.finished).toBe(true);
      expect(handle.readOutput()).toEqual({ text: 'two\n', lost: false, spillPaths: [] });
      expect(handle.readOutput().text).toBe('');
      expect(await handle.kill()).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('puts new stderr under a [stderr] line after new stdout', async () => {
    const executor = pool.make();
    const handle = await executor.start(executor.checkRequest({ command: 'printf out; echo err >&2; exit 4' }));
    expect(await handle.done).toEqual({ exitCode: 4, signal: null });
    expect(handle.readOutput().text).toBe('out\n[stderr]\nerr\n');

    const onlyErr = await executor.start(executor.checkRequest({ command: 'echo err2 >&2' }));
    await onlyErr.done;
    expect(onlyErr.readOutput().text).toBe('[stderr]\nerr2\n');
  });

  it('flags a read that lost bytes to the memory bound and names the complete spill file', async () => {
    const executor = pool.make({ maxOutputBytes: 1000 });
    const handle = await executor.start(executor.checkRequest({ command: 'seq 1 5000' }));
    await handle.done;
    const delta = handle.readOutput();
    expect(delta.lost).toBe(true);
    expect(Buffer.byteLength(delta.text)).toBeLessThanOrEqual(1000);
    expect(delta.text.endsWith('4999\n5000\n')).toBe(true);
    expect(delta.spillPaths).toHaveLength(1);
    let expected = '';
    for (let i = 1; i <= 5000; i++) expected += `${i}\n`;
    expect(fs.readFileSync(delta.spillPaths[0]!, 'utf8')).toBe(expected);
    expect(handle.readOutput()).toEqual({ text: '', lost: false, spillPaths: [] });
  });

  it('reports a lossy read with no spill paths when the spill is unavailable', async () => {
    const executor = pool.make({ maxOutputBytes: 100, maxSpillBytes: 200 });
    const handle = await executor.start(executor.checkRequest({ command: 'seq 1 5000' }));
    await handle.done;
    expect(handle.readOutput()).toMatchObject({ lost: true, spillPaths: [] });
  });

  it('kill() stops a TERM-trapping process group and returns true; false afterwards', async () => {
    const sleep = uniqueSleep();
    const executor = pool.make({ graceMs: 300 });
    const handle = await executor.start(
      executor.checkRequest({ command: `trap "echo got-term" TERM; echo up; while :; do sleep ${sleep}; done` }),
    );
    await readUntil(handle, (all) => all.includes('up'));
    expect(await pollUntil(() => processesWith(sleep).length > 0)).toBe(true);
    expect(await handle.kill()).toBe(true);
    expect(handle.finished).toBe(true);
    expect(await handle.done).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(await handle.kill()).toBe(false);
    expect(await survivors(sleep)).toEqual([]);
  });

  it('kill() answers false when the command had already exited on its own and only its pipe was draining', async () => {
    const sleep = uniqueSleep();
    const executor = pool.make();
    // The sleep leaves the group (own session) but holds the pipe, so the handle stays unfinished
    // for a while after the leader exited with 0: a kill then must not claim to have stopped it.
    const handle = await executor.start(executor.checkRequest({ command: `setsid sleep ${sleep} & echo started` }));
    try {
      await readUntil(handle, (all) => all.includes('started'));
      // Gone from /proc means reaped, and the reap is what delivers the exit to the handle.
      expect(await pollUntil(() => !fs.existsSync(`/proc/${handle.pid}`))).toBe(true);
      const killed = await handle.kill();
      expect(await handle.done).toEqual({ exitCode: 0, signal: null });
      expect(killed).toBe(false);
    } finally {
      for (const pid of processesWith(sleep)) process.kill(pid, 'SIGKILL');
    }
  });

  it('settles a spawn failure as failed with the error readable, never rejecting', async () => {
    const executor = pool.make();
    const missing = path.join(os.tmpdir(), `missing-${process.pid}-${Date.now()}`);
    const handle = await executor.start(handMade({ command: 'true', workdir: missing, timeoutMs: 1000 }));
    expect(await handle.done).toEqual({ exitCode: null, signal: null, error: `workdir does not exist: ${missing}` });
    expect(handle.finished).toBe(true);
    expect(handle.pid).toBeUndefined();
    expect(handle.readOutput().text).toBe(`workdir does not exist: ${missing}`);
    expect(handle.readOutput().text).toBe('');
    expect(await handle.kill()).toBe(false);

    const noShell = pool.make({ shellPath: '/nonexistent/bash' });
    const failed = await noShell.start(noShell.checkRequest({ command: 'true' }));
    const outcome = await failed.done;
    expect(outcome.error).toMatch(/cannot start the shell: \/nonexistent\/bash was not found/);
    expect(failed.readOutput().text).toBe(outcome.error);
  });

  it('delivers a start failure exactly once, even to a read made before the outcome settled', async () => {
    const handle = CapturedBackgroundProcess.failed(new Error('workdir does not exist: /gone'));
    expect(handle.finished).toBe(true);
    const first = handle.readOutput().text;
    await handle.done;
    expect(first + handle.readOutput().text).toBe('workdir does not exist: /gone');
    expect(handle.readOutput().text).toBe('');
  });

  it('dispose() kills running background groups, awaits them and removes the spills', async () => {
    const sleep = uniqueSleep();
    const executor = pool.make({ graceMs: 200, maxOutputBytes: 10 });
    const handle = await executor.start(
      executor.checkRequest({ command: `seq 1 100; trap "" TERM; sleep ${sleep} & sleep ${sleep}` }),
    );
    expect(await pollUntil(() => processesWith(sleep).length >= 2)).toBe(true);
    const dir = executor.spillDirectory!;
    await executor.dispose();
    expect(handle.finished).toBe(true);
    expect(fs.existsSync(dir)).toBe(false);
    expect(await survivors(sleep)).toEqual([]);
  });
});
