import type { SessionRecord } from './session-registry.js';

/** Why a record is due to end: unused for its idle time, or open past its lifetime. */
export type Expiry = 'idle' | 'lifetime';

/** Whether `record` is due to end at `now` (an idle time or lifetime of 0 is no limit; at the end of time, `Infinity`, every record is). */
export function expiryOf(record: Pick<SessionRecord, 'createdAt' | 'lastUseAt' | 'idleMs' | 'maxLifetimeMs'>, now: number): Expiry | undefined {
  if (now === Number.POSITIVE_INFINITY) return 'lifetime';
  if (record.maxLifetimeMs > 0 && now - record.createdAt >= record.maxLifetimeMs) return 'lifetime';
  if (record.idleMs > 0 && now - record.lastUseAt >= record.idleMs) return 'idle';
  return undefined;
}
