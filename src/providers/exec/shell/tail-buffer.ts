const EMPTY = Buffer.alloc(0);
const MIN_ALLOCATION = 256;

/**
 * The last `capacity` bytes of a byte stream, in one ring buffer that grows
 * (doubling) up to `capacity` and is then reused forever. Memory never depends
 * on how much was appended, and no appended chunk is retained (pipe chunks
 * are copied in), so a slow writer of tiny chunks cannot pin their backing
 * allocations either.
 */
export class TailBuffer {
  private ring: Buffer = EMPTY;
  private start = 0;
  private length = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new Error(`TailBuffer: bad capacity ${capacity}`);
  }

  /** Bytes currently held (at most `capacity`). */
  get size(): number {
    return this.length;
  }

  append(chunk: Uint8Array): void {
    const n = chunk.length;
    if (n === 0) return;
    const capacity = this.capacity;
    if (n >= capacity) {
      if (this.ring.length < capacity) this.ring = Buffer.allocUnsafe(capacity);
      this.ring.set(chunk.subarray(n - capacity), 0);
      this.start = 0;
      this.length = capacity;
      return;
    }
    if (this.length + n > this.ring.length && this.ring.length < capacity) {
      this.grow(Math.min(capacity, Math.max(this.ring.length * 2, this.length + n, MIN_ALLOCATION)));
    }
    // Here the chunk either fits, or the ring is at full capacity and wraps.
    const ring = this.ring;
    const size = ring.length;
    const at = (this.start + this.length) % size;
    const first = Math.min(n, size - at);
    ring.set(first === n ? chunk : chunk.subarray(0, first), at);
    if (first < n) ring.set(chunk.subarray(first), 0);
    const overflow = this.length + n - size;
    if (overflow > 0) {
      this.start = (this.start + overflow) % size;
      this.length = size;
    } else {
      this.length += n;
    }
  }

  /** A copy of the last `count` held bytes (all of them when `count` exceeds `size`). */
  last(count: number = this.length): Buffer {
    const n = Math.max(0, Math.min(count, this.length));
    const out = Buffer.allocUnsafe(n);
    if (n === 0) return out;
    const size = this.ring.length;
    const from = (this.start + this.length - n) % size;
    const first = Math.min(n, size - from);
    this.ring.copy(out, 0, from, from + first);
    if (first < n) this.ring.copy(out, first, 0, n - first);
    return out;
  }

  private grow(size: number): void {
    const next = Buffer.allocUnsafe(size);
    this.last().copy(next, 0);
    this.ring = next;
    this.start = 0;
  }
}

/** Index of the first byte that is not a UTF-8 continuation byte (at most 3 skipped). */
export function utf8StartIndex(bytes: Uint8Array): number {
  let i = 0;
  while (i < 3 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  return i;
}
