/**
 * Containers (or pods) started ahead, so a new session's first call takes a
 * ready one instead of waiting for a start (docs/containers.md#warm-pool).
 * Each is made exactly like a session's, before any session exists, and
 * runs nothing but its main process (and the channel's holder) until a
 * session takes it. `take` hands one over and starts its replacement; one
 * that stops while it waits is
 * dropped and replaced. A failed start stops the refill until the next
 * `take`, so an engine that is away is not asked in a loop.
 */
export class WarmPool<T extends { readonly ended: Promise<unknown> }> {
  private readonly ready: T[] = [];
  private readonly starting = new Set<Promise<void>>();
  private closed = false;
  private failed = false;

  constructor(
    private readonly size: number,
    private readonly make: () => Promise<T>,
    private readonly discard: (item: T) => Promise<void>,
  ) {}

  /** How many are ready now. */
  get readyCount(): number {
    return this.ready.length;
  }

  /** A ready one (oldest first), or undefined: the caller makes its own. Starts a replacement either way. */
  take(): T | undefined {
    const item = this.ready.shift();
    this.failed = false;
    this.fill();
    return item;
  }

  /** Starts what the pool lacks. */
  fill(): void {
    while (!this.closed && !this.failed && this.ready.length + this.starting.size < this.size) {
      const started: Promise<void> = this.make().then(
        (item) => this.arrived(item),
        () => void (this.failed = true),
      );
      const done = started.finally(() => this.starting.delete(done));
      this.starting.add(done);
    }
  }

  /** Removes every ready one, and each still starting once it is up. */
  async dispose(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.ready.splice(0).map((item) => this.discard(item)), ...this.starting]);
  }

  private async arrived(item: T): Promise<void> {
    if (this.closed) return this.discard(item);
    this.ready.push(item);
    void item.ended.then(() => {
      const index = this.ready.indexOf(item);
      if (index < 0) return;
      this.ready.splice(index, 1);
      void this.discard(item);
      this.fill();
    });
  }
}
