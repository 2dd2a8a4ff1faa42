import fs from 'node:fs';

/** Bytes a spill may have in flight before writes are made on the spot (bounds the memory a slow disk can take). */
const MAX_IN_FLIGHT_BYTES = 8 * 1024 * 1024;

/**
 * Writes one spill file off the event loop (libuv's thread pool), so the
 * copy into the file overlaps reading the command's next chunk instead of
 * adding to it. Each write goes to its own offset, so writes in flight
 * need no queue to land in order; when too many bytes are in flight a
 * write is made synchronously (at its offset too). `close` resolves once
 * every write has landed and the descriptor is closed: the capture's
 * owner waits for it before a result names the file. A failed write calls
 * `onError` once; later writes are skipped.
 */
export class SpillWriter {
  private offset = 0;
  private inFlightBytes = 0;
  private inFlight = 0;
  private failed = false;
  private closing?: Promise<void>;
  /** Called (and cleared) when the last write in flight lands. */
  private waiters: Array<() => void> = [];

  constructor(
    private readonly fd: number,
    private readonly onError: () => void,
  ) {}

  write(bytes: Buffer): void {
    if (this.failed || this.closing !== undefined || bytes.length === 0) return;
    const position = this.offset;
    this.offset += bytes.length;
    if (this.inFlightBytes + bytes.length > MAX_IN_FLIGHT_BYTES) {
      try {
        for (let done = 0; done < bytes.length; ) done += fs.writeSync(this.fd, bytes, done, bytes.length - done, position + done);
      } catch {
        this.fail();
      }
      return;
    }
    this.inFlightBytes += bytes.length;
    this.inFlight += 1;
    this.writeAt(bytes, 0, position);
  }

  /** Resolves when every write made so far has landed (or failed). */
  settled(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves when every write has landed (or failed) and the descriptor is closed. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.settled().then(() => {
      try {
        fs.closeSync(this.fd);
      } catch {
        // Best effort: the descriptor is forgotten either way.
      }
    });
    return this.closing;
  }

  /** Writes `bytes` from `done` on, resubmitting after a short write. */
  private writeAt(bytes: Buffer, done: number, position: number): void {
    fs.write(this.fd, bytes, done, bytes.length - done, position + done, (error, written) => {
      if (!error && !this.failed && done + written < bytes.length) {
        this.writeAt(bytes, done + written, position);
        return;
      }
      if (error) this.fail();
      this.inFlightBytes -= bytes.length;
      this.inFlight -= 1;
      if (this.inFlight > 0) return;
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    });
  }

  private fail(): void {
    if (this.failed) return;
    this.failed = true;
    this.onError();
  }
}
