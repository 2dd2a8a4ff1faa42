import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { StreamCapture } from './shell-executor.js';
import type { SpillDirectory, SpillFile } from './spill-directory.js';
import { TailBuffer, utf8StartIndex } from './tail-buffer.js';

export interface CaptureLimits {
  readonly maxOutputBytes: number;
  readonly maxSpillBytes: number;
}

/** One consuming read of a stream (see `OutputCapture.readNew`). */
export interface CaptureRead {
  readonly text: string;
  /** True when bytes since the previous read were overwritten in memory. */
  readonly lost: boolean;
}

/**
 * Captures one output stream within a fixed memory bound: the last
 * `maxOutputBytes` in a ring, and — only once the stream outgrows the ring —
 * the complete stream in a spill file, written synchronously (the event loop
 * is the only writer, so there is no backpressure to manage and order is
 * kept). Past `maxSpillBytes` the spill is deleted and reported unavailable.
 * A spill that cannot be written (disk full, temp dir gone) is likewise
 * dropped; the capture itself never throws on `write`.
 */
export class OutputCapture {
  private readonly tail: TailBuffer;
  private total = 0;
  private spill: SpillFile | undefined;
  /** The spill's descriptor while open; cleared on close so it is never closed twice. */
  private fd: number | undefined;
  /** True once the spill was started and then dropped or failed. */
  private spillLost = false;
  private closed = false;
  private readCursor = 0;
  /** Created by the first consuming read: foreground captures never need one. */
  private decoder: StringDecoder | undefined;

  constructor(
    private readonly limits: CaptureLimits,
    private readonly spills: SpillDirectory,
    private readonly label: string,
  ) {
    this.tail = new TailBuffer(limits.maxOutputBytes);
  }

  /** True when memory holds only the tail. */
  get truncated(): boolean {
    return this.total > this.tail.size;
  }

  /** The complete stream on disk, or undefined (never needed, dropped, or failed). */
  get spillPath(): string | undefined {
    return this.spillLost ? undefined : this.spill?.path;
  }

  write(chunk: Buffer): void {
    if (this.closed || chunk.length === 0) return;
    const before = this.total;
    this.total += chunk.length;
    if (this.total > this.limits.maxOutputBytes && !this.spillLost) {
      if (this.total > this.limits.maxSpillBytes) {
        this.dropSpill();
      } else {
        // First overflow: the ring still holds every earlier byte, so the spill starts complete.
        if (this.spill === undefined) this.startSpill(this.tail.last(before));
        this.writeSpill(chunk);
      }
    }
    this.tail.append(chunk);
  }

  /** The retained text: everything, or the tail without a split character at its start. */
  text(): string {
    const bytes = this.tail.last();
    const from = this.truncated ? utf8StartIndex(bytes) : 0;
    return bytes.toString('utf8', from);
  }

  snapshot(): StreamCapture {
    const spillPath = this.truncated ? this.spillPath : undefined;
    return {
      text: this.text(),
      bytes: this.total,
      truncated: this.truncated,
      ...(spillPath === undefined ? {} : { spillPath }),
    };
  }

  /**
   * Consuming read: the bytes produced since the previous read, decoded
   * without splitting characters across reads. When the ring overwrote some
   * of them, returns what is left and `lost: true`.
   */
  readNew(): CaptureRead {
    const fresh = this.total - this.readCursor;
    this.readCursor = this.total;
    let text = '';
    let lost = false;
    if (fresh > 0) {
      const held = this.tail.size;
      if (fresh > held) {
        lost = true;
        // The bytes are no longer contiguous with the previous read: restart decoding.
        this.decoder = new StringDecoder('utf8');
        const bytes = this.tail.last(held);
        text = this.decoder.write(bytes.subarray(utf8StartIndex(bytes)));
      } else {
        this.decoder ??= new StringDecoder('utf8');
        text = this.decoder.write(this.tail.last(fresh));
      }
    }
    if (this.closed && this.decoder !== undefined) text += this.decoder.end();
    return { text, lost };
  }

  /** The stream ended: flush and close the spill file (kept on disk). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closeFd();
    if (this.spill !== undefined && !this.spillLost) this.spills.retire(this.spill.path, this.total);
  }

  private startSpill(head: Buffer): void {
    try {
      this.spill = this.spills.create(this.label);
      this.fd = this.spill.fd;
    } catch {
      this.spillLost = true;
      return;
    }
    this.writeSpill(head);
  }

  private writeSpill(bytes: Buffer): void {
    const fd = this.fd;
    if (fd === undefined || this.spillLost) return;
    try {
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset);
    } catch {
      this.dropSpill();
    }
  }

  private closeFd(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) return;
    try {
      fs.closeSync(fd);
    } catch {
      // Best effort: the descriptor is forgotten either way.
    }
  }

  /** A partial spill would be mistaken for the full output, so it goes entirely. */
  private dropSpill(): void {
    this.spillLost = true;
    const spill = this.spill;
    if (spill === undefined) return;
    this.closeFd();
    try {
      fs.unlinkSync(spill.path);
    } catch {
      // Already gone (the directory was removed): nothing to report.
    }
  }
}

