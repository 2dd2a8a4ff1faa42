import { sessionKey, type NewSessionRecord } from './session-registry.js';

/*
 * A one-time value (an approval answer's nonce) marked used where every
 * replica sees it, with the registry's own create-if-absent: a marker is a
 * record no credential finds and no sandbox carries, which expires like a
 * session once the value could no longer be used anyway. It holds no
 * secret: the value's hash names it, the caller owns it.
 */

/** The `sessionId` of every marker starts so; no host session id does (they are UUIDs). */
const MARKER_ID_PREFIX = 'dsh-used-';

/** The record that marks `value` used by `caller`, kept for `lastsMs` (then a reaper claims it like an expired session). */
export function usedMarker(value: string, caller: string, lastsMs: number): NewSessionRecord {
  const ms = Math.max(1, Math.ceil(lastsMs));
  return {
    key: sessionKey(`dsh-used:${value}`),
    // No 2026-07-28 handle hashes to it (a handle's shape is fixed), and no 2025-era session is of this era.
    era: 'modern',
    caller,
    sessionId: `${MARKER_ID_PREFIX}${sessionKey(value).slice(0, 16)}`,
    cwd: '/',
    idleMs: ms,
    maxLifetimeMs: ms,
  };
}

/** Whether a claimed record is a marker: nothing runs for it, so a reaper ends nothing. */
export function isUsedMarker(record: { readonly sessionId: string }): boolean {
  return record.sessionId.startsWith(MARKER_ID_PREFIX);
}
