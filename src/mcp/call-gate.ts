/** Frees the place a call holds in the gate; idempotent. */
export type ReleaseCall = () => void;

export interface CallGateLimits {
  /** Tool calls running at once, over every session of the server. */
  readonly maxConcurrent: number;
  /** How long a call waits for a place before it fails. */
  readonly queueTimeoutMs: number;
}

/**
 * The server-wide cap on concurrent tool calls (`--max-concurrent-calls`):
 * a call over the cap waits in line (first come, first served) and fails
 * with a clear message when no place frees within the queue timeout. A call
 * whose signal aborts while waiting leaves the line.
 */
export class CallGate {
  private running = 0;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(private readonly limits: CallGateLimits) {}

  /** Calls running now (those holding a place). */
  get active(): number {
    return this.running;
  }

  /**
   * Resolves with the release function once the call may run, or with the
   * `Error: …` text (without the prefix) when it waited too long or was aborted.
   */
  acquire(signal: AbortSignal): Promise<ReleaseCall | { readonly refused: string }> {
    if (this.running < this.limits.maxConcurrent) return Promise.resolve(this.take());
    return new Promise((resolve) => {
      const waiter = {
        grant: () => {
          cleanup();
          resolve(this.take());
        },
      };
      const leave = (refused: string) => {
        cleanup();
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve({ refused });
      };
      const timer = setTimeout(
        () =>
          leave(
            `too many commands running: this server runs at most ${this.limits.maxConcurrent} at once (--max-concurrent-calls) ` +
              `and none finished within ${this.limits.queueTimeoutMs / 1000} s; try again later`,
          ),
        this.limits.queueTimeoutMs,
      );
      const onAbort = () => leave('tool call aborted');
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      if (signal.aborted) return leave('tool call aborted');
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private take(): ReleaseCall {
    this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      // The place passes straight to the next in line, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      next?.grant();
    };
  }
}
