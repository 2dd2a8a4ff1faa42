import type { NewSessionRecord, SessionEra } from './session-registry.js';

const KEY = /^[0-9a-f]{64}$/;

/** A record key is `sessionKey(credential)`: 64 lower-case hex digits, nothing a path or a name could be made of. */
function isSessionKey(key: unknown): key is string {
  return typeof key === 'string' && KEY.test(key);
}

export function assertSessionKey(key: unknown): asserts key is string {
  if (!isSessionKey(key)) throw new Error('a session record key is 64 lower-case hex digits (sessionKey of the credential)');
}

const ERAS: readonly SessionEra[] = ['legacy', 'modern'];

/** The fields of a new record, copied (nothing else a caller's object carries is stored), or undefined when one is missing or mistyped. */
export function newRecordOf(value: unknown): NewSessionRecord | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const counts = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (!isSessionKey(v.key) || !ERAS.includes(v.era as SessionEra)) return undefined;
  if (typeof v.caller !== 'string' || typeof v.sessionId !== 'string' || typeof v.cwd !== 'string') return undefined;
  if (!counts(v.idleMs) || !counts(v.maxLifetimeMs)) return undefined;
  if (v.client !== undefined && (v.client === null || typeof v.client !== 'object' || Array.isArray(v.client))) return undefined;
  const record: NewSessionRecord = { key: v.key, era: v.era as SessionEra, caller: v.caller, sessionId: v.sessionId, cwd: v.cwd, idleMs: v.idleMs, maxLifetimeMs: v.maxLifetimeMs };
  return v.client === undefined ? record : { ...record, client: v.client as Record<string, unknown> };
}

/** The fields of a record to register, refusing a malformed key or a missing field (the same check in every store). */
export function newRecordToStore(record: NewSessionRecord): NewSessionRecord {
  assertSessionKey(record.key);
  const fields = newRecordOf(record);
  if (fields === undefined) throw new Error('a session record needs era, caller, sessionId, cwd, idleMs and maxLifetimeMs');
  return fields;
}
