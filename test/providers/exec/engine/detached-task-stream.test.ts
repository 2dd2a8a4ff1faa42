// A capped detached run's streams read from their files (detached-task.ts CAPPED_COPY, docs/shared-sessions.md#tasks):
// the stream's own file while it holds everything, then the segments holding its newest bytes.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readRunOutput } from '../../../../src/providers/exec/engine/detached-task-files.js';
import { runCap, type DetachedRun } from '../../../../src/providers/exec/engine/detached-task.js';

describe('the cap of a detached run', () => {
  it('fits the stream file, two segments and a byte in maxSpillBytes, a segment being what a read shows', () => {
    expect(runCap({ maxOutputBytes: 64_000, maxSpillBytes: 64 * 1024 * 1024 })).toEqual({ bytes: 64 * 1024 * 1024 - 64_001, segment: 64_000 });
    expect(runCap({ maxOutputBytes: 1000, maxSpillBytes: 4000 })).toEqual({ bytes: 2999, segment: 1000 });
    // Too small for two segments of a read's size: smaller segments.
    expect(runCap({ maxOutputBytes: 10, maxSpillBytes: 10 })).toEqual({ bytes: 5, segment: 4 });
  });
});

describe('a capped detached run read from its files', () => {
  let dir: string;
  let run: DetachedRun;
  // The stream's own file holds bytes 0-9, segment n bytes 10 + 4(n-1) to 13 + 4(n-1).
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-dts-'));
    run = { containerId: 'c', dir, run: 'r-1', tag: 't', workdir: '/w', cap: { bytes: 10, segment: 4 } };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (suffix: string, content: string) => writeFileSync(path.join(dir, `r-1.${suffix}`), content);
  const [out, err] = ['out', 'err'].map((suffix) => () => path.join(dir, `r-1.${suffix}`));

  it('reads a stream within the cap from its own file, naming both files when it shows a tail', () => {
    file('out', '0123456789');
    const { delta, offsets } = readRunOutput(run, { out: 0, err: 0 }, true, 4);
    expect(delta).toEqual({ text: '6789', lost: true, spillPaths: [out!(), err!()] });
    expect(offsets).toEqual({ out: 10, err: 0 });
  });

  it('reads across the own file and the first segment, and names no file once the stream went past the cap', () => {
    file('out', '0123456789');
    file('out.1', 'ab');
    expect(readRunOutput(run, { out: 8, err: 0 }, true, 100)).toEqual({ delta: { text: '89ab', lost: false, spillPaths: [] }, offsets: { out: 12, err: 0 } });
    expect(readRunOutput(run, { out: 0, err: 0 }, true, 4).delta).toEqual({ text: '89ab', lost: true, spillPaths: [] });
  });

  it('reads the newest segments once the own file is gone: what came before them is lost', () => {
    file('out.2', 'efgh');
    file('out.3', 'ij');
    const { delta, offsets } = readRunOutput(run, { out: 3, err: 0 }, true, 100);
    expect(delta).toEqual({ text: 'efghij', lost: true, spillPaths: [] });
    expect(offsets.out).toBe(20);
    expect(readRunOutput(run, offsets, true, 100).delta).toEqual({ text: '', lost: false, spillPaths: [] });
    // Nothing new is lost: a read from where the last one stopped.
    file('out.3', 'ijkl');
    file('out.4', 'm');
    expect(readRunOutput(run, offsets, true, 100).delta).toEqual({ text: 'klm', lost: false, spillPaths: [] });
  });

  it('names the file of a clipped stream that still holds everything, and not the other', () => {
    file('out.2', 'efgh');
    file('err', '0123456789');
    expect(readRunOutput(run, { out: 14, err: 0 }, true, 4).delta).toEqual({ text: 'efgh\n[stderr]\n6789', lost: true, spillPaths: [err!()] });
  });

  it('reads only from where the segments join up, whatever else is there', () => {
    // Segment 2 is gone: 1 does not join 3.
    file('out.1', 'abcd');
    file('out.3', 'ij');
    file('out.x', 'not a segment');
    expect(readRunOutput(run, { out: 0, err: 0 }, true, 100).delta).toEqual({ text: 'ij', lost: true, spillPaths: [] });
  });

  it('follows no segment linked by the sandbox', () => {
    const secret = path.join(dir, 'secret');
    writeFileSync(secret, 'host secret');
    file('out', '0123456789');
    symlinkSync(secret, path.join(dir, 'r-1.out.1'));
    expect(readRunOutput(run, { out: 0, err: 0 }, true, 100).delta.text).toBe('0123456789');
  });

  it('reads an uncapped run (a relay, an older replica) from its own file alone', () => {
    const { cap: _, ...uncapped } = run;
    file('out', '0123456789');
    file('out.1', 'ab');
    expect(readRunOutput(uncapped, { out: 0, err: 0 }, true, 100).delta).toEqual({ text: '0123456789', lost: false, spillPaths: [] });
  });
});
