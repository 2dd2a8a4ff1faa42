// The spill file written off the event loop: every byte lands at its place, whatever is in flight.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SpillWriter } from '../../../src/providers/shell/spill-writer.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-spill-writer-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function open(): { file: string; fd: number } {
  const file = path.join(dir, 'spill.log');
  return { file, fd: fs.openSync(file, 'wx', 0o600) };
}

describe('SpillWriter', () => {
  it('lands many small writes in order, and close resolves once all are on disk', async () => {
    const { file, fd } = open();
    const writer = new SpillWriter(fd, () => {
      throw new Error('no write should fail');
    });
    let expected = '';
    for (let i = 0; i < 2000; i++) {
      const line = `${i}\n`;
      expected += line;
      writer.write(Buffer.from(line));
    }
    await writer.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(expected);
  });

  it('writes on the spot past 8 MiB in flight, still in place (40 MiB in 1 MiB chunks at once)', async () => {
    const { file, fd } = open();
    const writer = new SpillWriter(fd, () => undefined);
    const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(1024 * 1024, 65 + (i % 26)));
    for (const chunk of chunks) writer.write(chunk);
    await writer.close();
    expect(fs.readFileSync(file).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('settled() waits for what is in flight; writes after close are ignored', async () => {
    const { file, fd } = open();
    const writer = new SpillWriter(fd, () => undefined);
    writer.write(Buffer.from('one\n'));
    await writer.settled();
    expect(fs.readFileSync(file, 'utf8')).toBe('one\n');
    await writer.close();
    writer.write(Buffer.from('two\n'));
    await writer.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('one\n');
  });

  it('reports a failed write once and skips the rest', async () => {
    const { file, fd: writable } = open();
    fs.closeSync(writable);
    // Read-only: every write fails with EBADF (a closed number could be reused by another file meanwhile).
    const fd = fs.openSync(file, 'r');
    let failures = 0;
    const writer = new SpillWriter(fd, () => failures++);
    for (let i = 0; i < 5; i++) writer.write(Buffer.from('x'));
    await writer.close();
    expect(failures).toBe(1);
  });
});
