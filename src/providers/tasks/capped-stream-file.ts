import { closeSync, constants as fsConstants, openSync, rmSync, writeSync } from 'node:fs';
import type { RunCap } from '../exec/engine/detached-task.js';

/**
 * A relayed task's output written as a detached command's copier writes it
 * (detached-task.ts CAPPED_COPY), so every replica reads both alike and the
 * sandbox's directory keeps at most `executor.maxSpillBytes` of it: the
 * stream's own file first, then segments, an old one removed before a new
 * one is written. Never through a link: the directory is writable from the sandbox.
 */
export class CappedStreamFile {
  private written = 0;

  constructor(
    private readonly file: string,
    private readonly cap: RunCap,
  ) {
    this.write(file, Buffer.alloc(0));
  }

  append(text: string): void {
    let bytes = Buffer.from(text, 'utf8');
    while (bytes.length > 0) {
      const { target, room } = this.next();
      const part = bytes.subarray(0, room);
      this.write(target, part);
      this.written += part.length;
      bytes = bytes.subarray(part.length);
    }
  }

  /** Where the next byte goes and how many fit there; a new segment first removes the file two before it. */
  private next(): { target: string; room: number } {
    const { bytes, segment } = this.cap;
    if (this.written < bytes) return { target: this.file, room: bytes - this.written };
    const n = Math.floor((this.written - bytes) / segment) + 1;
    const room = bytes + n * segment - this.written;
    if (room === segment && n >= 2) rmSync(n === 2 ? this.file : `${this.file}.${n - 2}`, { force: true });
    return { target: `${this.file}.${n}`, room };
  }

  private write(target: string, bytes: Buffer): void {
    const fd = openSync(target, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | fsConstants.O_NOFOLLOW, 0o644);
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
    } finally {
      closeSync(fd);
    }
  }
}
