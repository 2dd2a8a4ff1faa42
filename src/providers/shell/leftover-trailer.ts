/**
 * Reads the count of leftover processes a wrapper killed where the host
 * cannot see them end (a container exec, the sandbox's PID namespace), which
 * it writes last on stderr as `\x1fdsh-left:<tag>:<n>\x1f` (there is no
 * other channel back), and takes that trailer out of the stream wherever it
 * lands, so the command's stderr reaches the capture byte for byte. Only this
 * command's tag matches: a command printing a trailer of its own (or another
 * command's) passes through as output.
 */
export class LeftoverTrailer {
  private readonly marker: Buffer;
  private held: Buffer = Buffer.alloc(0);
  private found = 0;

  constructor(tag: string) {
    this.marker = Buffer.from(`\x1fdsh-left:${tag}:`, 'latin1');
  }

  /** Processes the wrapper reported killing (0 until the trailer arrives). */
  get count(): number {
    return this.found;
  }

  /** The bytes of `chunk` (and of earlier held ones) that are output; a possible trailer start is held back. */
  push(chunk: Buffer): Buffer {
    let data = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    this.held = Buffer.alloc(0);
    // Output without the marker's first byte (the common case) passes as is.
    if (data.indexOf(0x1f) < 0) return data;
    for (let from = 0; ; ) {
      const at = data.indexOf(this.marker, from);
      if (at < 0) break;
      const close = data.indexOf(0x1f, at + this.marker.length);
      if (close < 0) break;
      const digits = data.toString('latin1', at + this.marker.length, close);
      if (!/^\d{1,9}$/.test(digits)) {
        from = at + 1;
        continue;
      }
      this.found = Number(digits);
      data = Buffer.concat([data.subarray(0, at), data.subarray(close + 1)]);
      from = at;
    }
    const keep = this.partialStart(data);
    this.held = data.subarray(keep);
    return data.subarray(0, keep);
  }

  /** At the end of the stream: whatever was held back is output after all. */
  end(): Buffer {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    return rest;
  }

  /** Where an unfinished trailer (the marker's prefix, or the marker and up to 9 digits) starts; `data.length` when none. */
  private partialStart(data: Buffer): number {
    const longest = this.marker.length + 9;
    for (let at = data.lastIndexOf(0x1f); at >= 0 && at >= data.length - longest; at = at === 0 ? -1 : data.lastIndexOf(0x1f, at - 1)) {
      const tail = data.subarray(at);
      const head = tail.subarray(0, Math.min(tail.length, this.marker.length));
      if (!head.equals(this.marker.subarray(0, head.length))) continue;
      if (/^\d*$/.test(tail.toString('latin1', head.length))) return at;
    }
    return data.length;
  }
}
