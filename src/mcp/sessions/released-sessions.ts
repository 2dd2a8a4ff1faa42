import type { IdleSettings, StageCause } from './idle-stages.js';
import type { EvictionCause, SessionCaps } from './session-counter.js';

/** Why a session was released by the server (not closed by its client). */
/** A session the server ended, as the audit log and the metrics record it. */
export interface ServerRelease {
  readonly kind: ReleaseCause['kind'];
  /** The id the client holds (`Mcp-Session-Id` or a 2026-07-28 handle). */
  readonly clientSession: string;
  /** The host session's id. */
  readonly session: string;
  /** The token name; undefined or empty without one. */
  readonly caller: string | undefined;
  readonly withRunningTasks: boolean;
}

export type ReleaseCause =
  | { readonly kind: 'idle'; readonly idleMs: number }
  | { readonly kind: 'lifetime'; readonly lifetimeMs: number }
  | { readonly kind: 'evicted'; readonly cap: EvictionCause };

/** The release cause of a session the idle stages end. */
export function stageCause(cause: StageCause, settings: IdleSettings): ReleaseCause {
  return cause === 'lifetime' ? { kind: 'lifetime', lifetimeMs: settings.lifetimeMs ?? 0 } : { kind: 'idle', idleMs: settings.sessionIdleMs };
}

/** What the released session had, in the words of the answers that name it. */
export function releaseReason(cause: ReleaseCause, caps: SessionCaps): string {
  if (cause.kind === 'idle') return `it was released after ${Number((cause.idleMs / 1000).toFixed(1))} s without a request (--idle-timeout)`;
  if (cause.kind === 'lifetime') return `it reached its lifetime of ${Number((cause.lifetimeMs / 1000).toFixed(1))} s (--session-lifetime)`;
  const flag = cause.cap === 'server' ? `--max-sessions ${caps.maxSessions}` : `--max-sessions-per-caller ${caps.maxSessionsPerCaller ?? ''}`;
  return `it was idle and released to make room for a new session (${flag})`;
}

/** Remembered at most (oldest forgotten first): enough for clients coming back, bounded against churn. */
const REMEMBERED = 1024;

/**
 * The ids (or handles) of sessions the server released, with why, so the
 * client that comes back is told what happened instead of a bare "unknown".
 * Only the caller that held one hears the reason: for anyone else it reads
 * like any unknown id. An id is never handed out again (they are random),
 * and a remembered one only ever answers with its reason.
 */
export class ReleasedSessions {
  private readonly entries = new Map<string, { readonly caller: string | undefined; readonly reason: string }>();

  remember(id: string, caller: string | undefined, reason: string): void {
    this.entries.set(id, { caller, reason });
    if (this.entries.size > REMEMBERED) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Why `id` was released, when `caller` held it; otherwise undefined. */
  reasonFor(id: string, caller: string | undefined): string | undefined {
    const entry = this.entries.get(id);
    return entry !== undefined && entry.caller === caller ? entry.reason : undefined;
  }
}
