import type { SessionRecord } from './session-registry.js';

/** Writes of one key closer together than this are skipped. */
const THROTTLE_MS = 1000;
/** A skipped touch must leave this much before the record could read as idle anywhere (clock skew, a claim under way). */
const SKIP_MARGIN_MS = 2000;
/** Past this many keys, entries older than the throttle window are dropped. */
const PRUNE_AT = 1000;

interface LastWrite {
  readonly at: number;
  readonly idleMs: number;
}

/**
 * Which touches may skip their write. A skipped touch answers true without
 * looking, so it is skipped only when this process wrote the key less than
 * a second ago and the record cannot have gone idle since: a reaper never
 * ends a session a skipped touch reported live (its lifetime aside, which
 * ends a session however busy).
 */
export class TouchThrottle {
  private readonly writes = new Map<string, LastWrite>();

  /** Whether a touch of `key` at `now` may skip the write. */
  canSkip(key: string, now: number): boolean {
    const last = this.writes.get(key);
    if (last === undefined || now - last.at >= THROTTLE_MS || now < last.at) return false;
    return last.idleMs <= 0 || last.at + last.idleMs > now + SKIP_MARGIN_MS;
  }

  /** This process wrote `key`'s last use at `at` (the record tells its idle time). */
  wrote(record: Pick<SessionRecord, 'key' | 'idleMs'>, at: number): void {
    if (this.writes.size >= PRUNE_AT) {
      for (const [key, write] of this.writes) if (at - write.at >= THROTTLE_MS) this.writes.delete(key);
    }
    this.writes.set(record.key, { at, idleMs: record.idleMs });
  }

  /** The record is gone (removed or claimed). */
  forget(key: string): void {
    this.writes.delete(key);
  }
}
