// A relayed task's output file kept as a detached command's copier keeps it (docs/shared-sessions.md#tasks):
// laid out so readRunOutput reads it, and never more than the cap on disk.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CappedStreamFile } from '../../../src/providers/tasks/capped-stream-file.js';
import { readRunOutput } from '../../../src/providers/exec/engine/detached-task-files.js';
import type { DetachedRun } from '../../../src/providers/exec/engine/detached-task.js';

describe('a relayed stream written under a cap', () => {
  let dir: string;
  let run: DetachedRun;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-csf-'));
    run = { containerId: '', dir, run: 'r-1', tag: '', workdir: '', cap: { bytes: 10, segment: 4 } };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const files = () =>
    Object.fromEntries(
      readdirSync(dir)
        .sort()
        .map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]),
    );
  const onDisk = () => readdirSync(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);

  it('keeps the whole stream in its own file up to the cap, then the newest segments, within bytes + 2 segments', () => {
    const file = new CappedStreamFile(path.join(dir, 'r-1.out'), run.cap!);
    expect(files()).toEqual({ 'r-1.out': '' });
    file.append('0123456');
    file.append('789ab');
    expect(files()).toEqual({ 'r-1.out': '0123456789', 'r-1.out.1': 'ab' });
    const sizes: number[] = [];
    for (const chunk of ['cdefghij', 'klmnopqrst', 'u']) {
      file.append(chunk);
      sizes.push(onDisk());
    }
    expect(files()).toEqual({ 'r-1.out.5': 'qrst', 'r-1.out.6': 'u' });
    expect(Math.max(...sizes)).toBeLessThanOrEqual(10 + 4 + 1);
    // Read as any replica reads a detached command's files.
    expect(readRunOutput(run, { out: 0, err: 0 }, true, 4).delta).toEqual({ text: 'rstu', lost: true, spillPaths: [] });
    expect(readRunOutput(run, { out: 27, err: 0 }, true, 100)).toEqual({ delta: { text: 'rstu', lost: false, spillPaths: [] }, offsets: { out: 31, err: 0 } });
  });

  it('writes through no link the sandbox planted', () => {
    const secret = path.join(dir, 'secret');
    writeFileSync(secret, 'host file');
    symlinkSync(secret, path.join(dir, 'r-1.out'));
    expect(() => new CappedStreamFile(path.join(dir, 'r-1.out'), run.cap!)).toThrow(/ELOOP/);
    expect(readFileSync(secret, 'utf8')).toBe('host file');
  });
});
