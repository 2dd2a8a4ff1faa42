import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { Redactor } from '../../output-filter/redactor.js';
import { TextFilter, type FilteredAscii, type FilteredText } from '../../output-filter/text-filter.js';
import type { StreamCapture } from './shell-executor.js';
import type { SpillDirectory, SpillFile } from './spill-directory.js';
import { TailBuffer, utf8StartIndex } from './tail-buffer.js';

interface CaptureLimits {
  readonly maxOutputBytes: number;
  readonly maxSpillBytes: number;
}

/** One consuming read of a stream (see `OutputCapture.readNew`). */
interface CaptureRead {
  readonly text: string;
  /** True when bytes since the previous read were overwritten in memory. */
  readonly lost: boolean;
  /** Progress updates collapsed since the previous read. */
  readonly collapsed: number;
}

/**
 * Captures one output stream within a fixed memory bound: the last
 * `maxOutputBytes` of the model's view (redacted and collapsed, see
 * `TextFilter`) in a ring, and — only once the stream outgrows the ring —
 * the complete stream, redacted but not collapsed, in a spill file written
 * synchronously (the event loop is the only writer, so there is no
 * backpressure to manage and order is kept). Until then the spill's head is
 * buffered (at most `maxOutputBytes`). Past `maxSpillBytes` the spill is
 * deleted and reported unavailable; a spill the model's view never needed
 * (progress redraws collapsed it into the ring) is deleted at close. A spill
 * that cannot be written (disk full, temp dir gone) is likewise dropped; the
 * capture itself never throws on `write`.
 */
export class OutputCapture {
  private readonly tail: TailBuffer;
  /** Bytes the stream produced. */
  private total = 0;
  /** Bytes of the model's view appended to the ring. */
  private shown = 0;
  private readonly filter: TextFilter;
  private readonly input = new StringDecoder('utf8');
  /** `input` may hold part of a character (its last chunk ended in a non-ASCII byte). */
  private inputPending = false;
  /** Spill bytes before the spill starts (it starts once they exceed `maxOutputBytes`). */
  private head: Buffer[] | undefined = [];
  private headBytes = 0;
  private spilled = 0;
  private readCollapsed = 0;
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
    private readonly redactor?: Redactor,
  ) {
    this.tail = new TailBuffer(limits.maxOutputBytes);
    this.filter = new TextFilter(redactor);
  }

  /** True when memory holds only the tail of the model's view. */
  get truncated(): boolean {
    return this.shown > this.tail.size;
  }

  /** Progress updates collapsed so far. */
  get collapsedUpdates(): number {
    return this.filter.collapsedUpdates;
  }

  /** The complete stream on disk, or undefined (never needed, dropped, or failed). */
  get spillPath(): string | undefined {
    return this.spillLost ? undefined : this.spill?.path;
  }

  write(chunk: Buffer): void {
    if (this.closed || chunk.length === 0) return;
    this.total += chunk.length;
    // ASCII bytes are their own UTF-8 text: filtered as bytes where the filters change nothing.
    const ascii = this.inputPending || !isAscii(chunk) ? undefined : this.filter.pushAscii(chunk);
    if (ascii !== undefined) {
      this.acceptAscii(ascii);
      return;
    }
    const text = this.input.write(chunk);
    this.inputPending = chunk[chunk.length - 1]! >= 0x80;
    if (this.redactor?.active) {
      this.accept(this.filter.push(text));
    } else {
      // Nothing to redact: the spill keeps the exact bytes, invalid UTF-8 included.
      this.toSpill(chunk);
      this.toTail(this.filter.push(text).clean);
    }
  }

  /** The retained text: everything, or the tail without a split character at its start. */
  text(): string {
    this.settle();
    const bytes = this.tail.last();
    const from = this.truncated ? utf8StartIndex(bytes) : 0;
    return bytes.toString('utf8', from);
  }

  snapshot(): StreamCapture {
    this.settle();
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
    this.settle();
    const collapsed = this.filter.collapsedUpdates - this.readCollapsed;
    this.readCollapsed += collapsed;
    const fresh = this.shown - this.readCursor;
    this.readCursor = this.shown;
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
    return { text, lost, collapsed };
  }

  /** The stream ended: flush the filters and close the spill file (kept on disk when the view needs it). */
  close(): void {
    if (this.closed) return;
    const tail = this.input.end();
    this.accept(this.redactor?.active ? this.filter.push(tail) : { redacted: '', clean: this.filter.push(tail).clean });
    this.accept(this.filter.end());
    this.closed = true;
    this.head = undefined;
    this.closeFd();
    if (this.spill === undefined || this.spillLost) return;
    if (this.truncated) this.spills.retire(this.spill.path, this.spilled);
    else this.dropSpill();
  }

  /** Mid-run reads see everything the filters can release now. */
  private settle(): void {
    if (!this.closed) this.accept(this.filter.drain());
  }

  private accept(filtered: FilteredText): void {
    if (filtered.redacted !== '') this.toSpill(Buffer.from(filtered.redacted));
    this.toTail(filtered.clean);
  }

  private acceptAscii(filtered: FilteredAscii): void {
    if (filtered.redacted.text !== '') this.toSpill(Buffer.from(filtered.redacted.text));
    this.toSpill(filtered.redacted.bytes);
    this.toTail(filtered.clean.text);
    this.toTailBytes(filtered.clean.bytes);
  }

  private toTail(clean: string): void {
    if (clean === '') return;
    this.toTailBytes(Buffer.from(clean));
  }

  private toTailBytes(bytes: Buffer): void {
    this.shown += bytes.length;
    this.tail.append(bytes);
  }

  private toSpill(bytes: Buffer): void {
    if (this.spillLost || bytes.length === 0) return;
    this.spilled += bytes.length;
    if (this.spilled > this.limits.maxSpillBytes) {
      this.dropSpill();
      return;
    }
    const head = this.head;
    if (this.spill === undefined && head !== undefined) {
      head.push(bytes);
      this.headBytes += bytes.length;
      if (this.headBytes <= this.limits.maxOutputBytes) return;
      this.head = undefined;
      this.startSpill(Buffer.concat(head));
      return;
    }
    this.writeSpill(bytes);
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
    this.head = undefined;
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

