/** Frees the place a call holds in the gate; idempotent. */
type ReleaseCall = () => void;

/** Which cap kept a call waiting: the server's (`--max-concurrent-calls`) or its caller's (`--max-concurrent-calls-per-caller`). */
export type GateCap = 'server' | 'caller';

export interface CallGateLimits {
  /** Tool calls running at once, over every session of the server. */
  readonly maxConcurrent: number;
  /** Tool calls one caller (token name) may run at once; default: `maxConcurrent`. */
  readonly maxConcurrentPerCaller?: number;
  /** How long a call waits for a place before it fails. */
  readonly queueTimeoutMs: number;
  /** Told of every call refused after waiting its queue timeout (metrics, log). */
  readonly onRefused?: (cap: GateCap, caller: string | undefined) => void;
}

interface Waiter {
  readonly grant: () => void;
}

/** The key of calls without a caller (stdio, --no-auth): they share one line. */
const NOBODY = '';

/**
 * The server-wide cap on concurrent tool calls (`--max-concurrent-calls`),
 * and optionally a cap per caller (`--max-concurrent-calls-per-caller`). A
 * call over a cap waits in its caller's line; a freed place goes to the
 * callers' lines in turn (round robin), so one caller's burst cannot make
 * another's call wait behind all of it. A call fails with a clear message
 * when no place frees within the queue timeout; one whose signal aborts
 * while waiting leaves the line.
 */
export class CallGate {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  /** Callers with waiting calls, in turn order (the one served last moves to the end). */
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly perCaller: number;

  constructor(private readonly limits: CallGateLimits) {
    this.perCaller = limits.maxConcurrentPerCaller ?? limits.maxConcurrent;
  }

  /** Calls running now (those holding a place). */
  get active(): number {
    return this.running;
  }

  /**
   * Resolves with the release function once the call may run, or with the
   * `Error: …` text (without the prefix) when it waited too long or was aborted.
   */
  acquire(signal: AbortSignal, caller?: string): Promise<ReleaseCall | { readonly refused: string }> {
    const key = caller ?? NOBODY;
    // A waiting call that could run would have got the place already: a newcomer passes nobody.
    if (this.fits(key) && !this.waiting.has(key)) return Promise.resolve(this.take(key));
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: () => {
          cleanup();
          resolve(this.take(key));
        },
      };
      const leave = (refused: string) => {
        cleanup();
        this.remove(key, waiter);
        resolve({ refused });
      };
      const timer = setTimeout(() => {
        const cap: GateCap = (this.runningBy.get(key) ?? 0) >= this.perCaller ? 'caller' : 'server';
        this.limits.onRefused?.(cap, caller);
        leave(this.refusal(cap, caller));
      }, this.limits.queueTimeoutMs);
      const onAbort = () => leave('tool call aborted');
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      if (signal.aborted) return leave('tool call aborted');
      signal.addEventListener('abort', onAbort, { once: true });
      const line = this.waiting.get(key);
      if (line) line.push(waiter);
      else this.waiting.set(key, [waiter]);
    });
  }

  private refusal(cap: GateCap, caller: string | undefined): string {
    const waited = `none finished within ${this.limits.queueTimeoutMs / 1000} s; try again later`;
    if (cap === 'caller' && caller !== undefined && this.perCaller < this.limits.maxConcurrent) {
      return `too many commands running for caller "${caller}": at most ${this.perCaller} at once each (--max-concurrent-calls-per-caller) and ${waited}`;
    }
    return `too many commands running: this server runs at most ${this.limits.maxConcurrent} at once (--max-concurrent-calls) and ${waited}`;
  }

  private fits(key: string): boolean {
    return this.running < this.limits.maxConcurrent && (this.runningBy.get(key) ?? 0) < this.perCaller;
  }

  private remove(key: string, waiter: Waiter): void {
    const line = this.waiting.get(key);
    const index = line?.indexOf(waiter) ?? -1;
    if (index >= 0) line!.splice(index, 1);
    if (line?.length === 0) this.waiting.delete(key);
  }

  private take(key: string): ReleaseCall {
    this.running++;
    this.runningBy.set(key, (this.runningBy.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const left = this.runningBy.get(key)! - 1;
      if (left === 0) this.runningBy.delete(key);
      else this.runningBy.set(key, left);
      this.pass();
    };
  }

  /** Freed places go straight to waiting calls, one caller's line after another, so a newcomer cannot overtake them. */
  private pass(): void {
    for (const [key, line] of [...this.waiting]) {
      if (this.running >= this.limits.maxConcurrent) return;
      if (!this.fits(key)) continue;
      const next = line.shift()!;
      // This caller goes to the back of the turn order.
      this.waiting.delete(key);
      if (line.length > 0) this.waiting.set(key, line);
      next.grant();
    }
  }
}
