interface StdinWaitWatcherOptions {
  /** Quiet time before the first check, and after any new output. */
  readonly quietMs: number;
  /** Cap of the backing-off interval between later checks. */
  readonly maxIntervalMs: number;
  /** True while the command should still be watched (it runs and a send waits for it). */
  readonly active: () => boolean;
  /** One /proc inspection: is the foreground job blocked reading the terminal? */
  readonly isWaiting: () => boolean;
  /** Called once the wait is confirmed. */
  readonly onWaiting: () => void;
}

/**
 * Decides when a running command waits for terminal input without polling
 * the hot path: it checks only after `quietMs` without output, backs off
 * while the command stays quiet, and confirms a positive check once more
 * after a short pause with no output in between (a prompt or an end marker
 * written just before the read may still be in flight).
 */
export class StdinWaitWatcher {
  private lastDataAt = 0;
  private seenAt?: number;
  private interval: number;
  private timer?: NodeJS.Timeout;

  constructor(private readonly options: StdinWaitWatcherOptions) {
    this.interval = options.quietMs;
  }

  start(): void {
    this.lastDataAt = performance.now();
    this.seenAt = undefined;
    this.interval = this.options.quietMs;
    this.schedule(this.interval);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Output arrived (cheap: one clock read per PTY chunk). */
  noteData(): void {
    this.lastDataAt = performance.now();
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), delay);
  }

  private check(): void {
    if (!this.options.active()) return;
    const { quietMs } = this.options;
    const quietFor = performance.now() - this.lastDataAt;
    if (quietFor < quietMs) {
      this.interval = quietMs;
      this.seenAt = undefined;
      this.schedule(quietMs - quietFor);
      return;
    }
    if (!this.options.isWaiting()) {
      this.seenAt = undefined;
      this.interval = Math.min(this.interval * 2, this.options.maxIntervalMs);
      this.schedule(this.interval);
      return;
    }
    if (this.seenAt === undefined || this.lastDataAt > this.seenAt) {
      this.seenAt = performance.now();
      this.schedule(Math.max(20, quietMs / 4));
      return;
    }
    // Decide after the event loop's next poll phase, so PTY data already readable is consumed first.
    const seenAt = this.seenAt;
    setImmediate(() => {
      if (!this.options.active()) return;
      if (this.lastDataAt > seenAt) this.schedule(quietMs);
      else this.options.onWaiting();
    });
  }
}
