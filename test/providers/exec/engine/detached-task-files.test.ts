// Reading a detached command's files (docs/shared-sessions.md#tasks): offsets, cut characters, clipping, the status.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readRunEnd, readRunOutput } from '../../../../src/providers/exec/engine/detached-task-files.js';
import type { DetachedRun } from '../../../../src/providers/exec/engine/detached-task.js';

describe('a detached run read from its files', () => {
  let dir: string;
  let run: DetachedRun;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-dt-'));
    run = { containerId: 'c', dir, run: 'r-1', tag: 't', workdir: '/w' };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (suffix: string, content: string | Buffer) => writeFileSync(path.join(dir, `r-1.${suffix}`), content);

  it('reads each stream from its offset, stdout first, and a cut character only once whole', () => {
    file('out', Buffer.concat([Buffer.from('a\n'), Buffer.from('é').subarray(0, 1)]));
    file('err', 'warn\n');
    const first = readRunOutput(run, { out: 0, err: 0 }, false, 1000);
    expect(first.delta).toEqual({ text: 'a\n[stderr]\nwarn\n', lost: false, spillPaths: [] });
    expect(first.offsets).toEqual({ out: 2, err: 5 });
    file('out', 'a\né!\n');
    const second = readRunOutput(run, first.offsets, false, 1000);
    expect(second.delta.text).toBe('é!\n');
    expect(readRunOutput(run, second.offsets, true, 1000).delta.text).toBe('');
  });

  it('shows the tail of a stream that gained more than the bound, naming the files', () => {
    file('out', 'x'.repeat(50) + 'tail');
    const { delta, offsets } = readRunOutput(run, { out: 0, err: 0 }, true, 10);
    expect(delta).toEqual({ text: 'xxxxxxtail', lost: true, spillPaths: [path.join(dir, 'r-1.out'), path.join(dir, 'r-1.err')] });
    expect(offsets.out).toBe(54);
  });

  it('follows no link the sandbox could plant', () => {
    const secret = path.join(dir, 'secret');
    writeFileSync(secret, 'host secret');
    symlinkSync(secret, path.join(dir, 'r-1.out'));
    expect(readRunOutput(run, { out: 0, err: 0 }, true, 1000).delta.text).toBe('');
  });

  it('reads nothing through a FIFO the sandbox could plant, and does not block on it', () => {
    // A FIFO with no writer: an open or read that waited for one would hang this test.
    execFileSync('mkfifo', [path.join(dir, 'r-1.out'), path.join(dir, 'r-1.status')]);
    file('err', 'warn\n');
    expect(readRunOutput(run, { out: 0, err: 0 }, true, 1000).delta.text).toBe('[stderr]\nwarn\n');
    expect(readRunEnd(run)).toBeUndefined();
  });

  it('takes no status from a link the sandbox could plant', () => {
    const secret = path.join(dir, 'secret');
    writeFileSync(secret, 'exit:0\n');
    symlinkSync(secret, path.join(dir, 'r-1.status'));
    expect(readRunEnd(run)).toBeUndefined();
  });

  it('reads how it ended: an exit status, a signal, a workdir it could not enter; nothing while it runs', () => {
    expect(readRunEnd(run)).toBeUndefined();
    file('status', 'exit:3\n');
    expect(readRunEnd(run)?.outcome).toEqual({ exitCode: 3, signal: null });
    file('status', 'signal:15\n');
    expect(readRunEnd(run)?.outcome).toEqual({ exitCode: null, signal: 'SIGTERM' });
    file('status', 'workdir:missing\n');
    expect(readRunEnd(run)?.outcome).toEqual({ exitCode: null, signal: null, error: 'workdir does not exist: /w' });
  });
});
