import { createHash } from 'node:crypto';
import type { ServiceIdentifier } from 'inversify';

/*
 * Shared sessions (docs/shared-sessions.md): with `--shared-sessions`, a
 * session opened on one replica is recorded where every replica over the
 * same engine can find it — a small record per session, kept by the engine's
 * side (a directory of records beside a local Docker engine, a Lease per
 * session in Kubernetes). A record holds no secret and no output: it is
 * found by the hash of the client's credential (the `Mcp-Session-Id` or the
 * session handle), never by the credential itself.
 */

/** Which protocol era opened the session: a 2025 `Mcp-Session-Id` or a 2026-07-28 session handle. */
export type SessionEra = 'legacy' | 'modern';

/** What a replica needs to serve a session another replica opened. */
export interface NewSessionRecord {
  /** `sessionKey(credential)`: the hash of the `Mcp-Session-Id` or the handle. */
  readonly key: string;
  readonly era: SessionEra;
  /** The token name that opened it (`''` when the server identifies nobody): only it may use the session. */
  readonly caller: string;
  /** The host session's id (commands see it as `DSH_SESSION_ID`); its sandbox carries it as a label. */
  readonly sessionId: string;
  /** The session's working directory. */
  readonly cwd: string;
  /** A 2025-era client's initialize (protocol version, capabilities, client info), so another replica answers as if it had seen it. */
  readonly client?: Readonly<Record<string, unknown>>;
  /** Idle this long (no request on any replica), the session is ended by whichever replica claims it first. */
  readonly idleMs: number;
  /** Open this long, the session is ended however busy (0: no limit). */
  readonly maxLifetimeMs: number;
}

export interface SessionRecord extends NewSessionRecord {
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  /** The last time a replica served a request of it (`touch`). */
  readonly lastUseAt: number;
}

export interface SessionRegistry {
  /** What holds the records, for logs and `doctor` (`dir /var/tmp/…`, `leases in namespace …`). */
  readonly describe: string;
  /** Records a new session; rejects when its key is taken (a key is a hash of 32 random bytes: never by chance). */
  register(record: NewSessionRecord): Promise<void>;
  /** The live record of `key`, or undefined (never was, ended, or claimed by a reaper). */
  find(key: string): Promise<SessionRecord | undefined>;
  /**
   * Marks the session used now, on behalf of whichever replica served it
   * (an implementation may skip writes closer together than a second or so).
   * False when the record is gone: the session ended meanwhile.
   */
  touch(key: string): Promise<boolean>;
  /** Ends a record (its client closed the session); true when this call removed it, false when it was already gone. */
  remove(key: string): Promise<boolean>;
  /**
   * Claims every record past its idle time or lifetime at `now`, each by
   * exactly one replica however many ask at once (optimistic concurrency on
   * the record: a record touched after it was read is not claimed). Resolves
   * with the records this replica took: it ends their sandboxes. `now` =
   * `Infinity` claims every record (the last replica stopping ends them all).
   */
  claimExpired(now?: number): Promise<SessionRecord[]>;
  /** The `sessionId`s of every live record (a sweep removes sandboxes whose record is gone). */
  liveSessionIds(): Promise<Set<string>>;
  /** Announces this replica alive until `leave()` (other replicas ask `othersAlive`). */
  join(): Promise<void>;
  leave(): Promise<void>;
  /** Whether another replica over the same records is alive: a draining replica leaves its sessions to it. */
  othersAlive(): Promise<boolean>;
}

export const SessionRegistry: ServiceIdentifier<SessionRegistry> = Symbol.for('dsh.SessionRegistry');

/** The record key of a client credential: hex SHA-256, so the registry never holds the credential. */
export function sessionKey(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}
