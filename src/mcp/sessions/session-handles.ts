import type { DshHost } from '../../container/dsh-host.js';
import type { HostSession } from '../../container/host-session.js';
import type { Clock, Logger } from '../../providers/logging/logger.js';
import { countAdopted } from './adopted-count.js';
import { SessionActivity, type IdleSettings, type RunningTasks } from './idle-stages.js';
import { IdleSessionTable, type LiveSession } from './idle-session-table.js';
import type { ReleaseCause, ServerRelease } from './released-sessions.js';
import { freedNote, SessionCounter, type SessionCaps, type SessionRefusal, type SessionSlot } from './session-counter.js';
import type { SharedSessions } from './shared-sessions.js';
import { messageOf } from '../../core/describe-value.js';

/*
 * The 2026-07-28 era has no connection to hang a session on (SEP-2567): the
 * state that spans calls — the persistent shell, background tasks — lives in
 * a host session the server names with a handle, and the model passes that
 * handle back as the tools' `session` argument. A handle is 32 random bytes,
 * bound to the caller (token name) that made it; another caller's handle
 * reads as unknown, exactly like another caller's `Mcp-Session-Id`.
 */

/** The tool argument that carries a handle. */
export const HANDLE_ARGUMENT = 'session';
const PREFIX = 'dsh-s-';
const HANDLE_SHAPE = /^dsh-s-[A-Za-z0-9_-]{43}$/;

/** The line a result ends with when its call left state behind in a fresh session. */
export function handleNotice(handle: string): string {
  return `[session: ${handle} — it keeps this call's shell and background tasks; pass "${HANDLE_ARGUMENT}": "${handle}" to later calls to use them]`;
}

/** Why a call with an unknown, expired or foreign handle is refused (the result reads `Error: ` and this). */
export function unknownHandleMessage(handle: string): string {
  return `session handle "${handle}" is unknown or expired (an idle session is closed with its shell and background tasks); call again without "${HANDLE_ARGUMENT}" to start a fresh session`;
}

const MALFORMED_HANDLE = `"${HANDLE_ARGUMENT}" must be a session handle (dsh-s-…) from an earlier result`;

/** What a handle table needs: the idle policy and the session count it shares with the other era. */
interface HandleOptions {
  readonly cwd: string;
  readonly idle: IdleSettings;
  readonly counter: SessionCounter;
  readonly runningTasks: RunningTasks;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Called when the server ends a handle's session (abandoned, past its lifetime, or to make room). */
  readonly onReleased?: (release: ServerRelease) => void;
  /**
   * With `--shared-sessions`: each handle is recorded there, a handle another
   * replica made is served here, and letting one go here (idle, shutdown)
   * leaves its end to the registry (docs/shared-sessions.md).
   */
  readonly shared?: SharedSessions;
}

/** The refusal of a fresh session when a cap is reached and no idle session could make room. */
function tooManySessions(refusal: SessionRefusal, caller: string | undefined, caps: SessionCaps): string {
  if (refusal === 'server') {
    return `too many sessions: this server holds at most ${caps.maxSessions} (--max-sessions); pass the "${HANDLE_ARGUMENT}" of one you hold, or wait for idle ones to expire`;
  }
  return `too many sessions for caller "${caller ?? 'default'}": at most ${caps.maxSessionsPerCaller ?? ''} each (--max-sessions-per-caller); pass the "${HANDLE_ARGUMENT}" of one you hold, or wait for idle ones to expire`;
}

/** Why `caller`'s call with a handle the server released is refused. */
function releasedHandleMessage(handle: string, reason: string): string {
  return `session handle "${handle}" is gone: ${reason}, with its shell and background tasks; call again without "${HANDLE_ARGUMENT}" to start a fresh session`;
}

interface Entry {
  readonly session: HostSession;
  readonly caller: string | undefined;
  readonly slot: SessionSlot;
  readonly activity: SessionActivity;
}

/** A call's session: run the call, then `finish()` says which handle (if a new one) the result names. */
interface HeldSession {
  readonly session: HostSession;
  finish(): Promise<string | undefined>;
}

/**
 * The handles' sessions. A fresh call takes a slot of the shared session
 * counter for its session; the slot goes back when the call left nothing to
 * keep, or when the handle's session is released (idle, or to make room
 * for a new session while idle; see idle-stages.ts).
 */
export class SessionHandles {
  private readonly table: IdleSessionTable<Entry>;
  /** Fresh sessions whose first call still runs. */
  private readonly inFlight = new Set<LiveSession>();
  private readonly entries: Map<string, Entry>;
  private readonly clock: Clock;
  /** Host sessions let go of here and still being disposed, by handle: one adopted again waits for it. */
  private readonly disposing = new Map<string, Promise<void>>();

  constructor(
    private readonly host: DshHost,
    private readonly options: HandleOptions,
  ) {
    // A released handle leaves the table at once: every entry in it counts.
    this.table = new IdleSessionTable<Entry>(options, () => true, (handle, entry, cause) => this.end(handle, entry, cause));
    this.entries = this.table.entries;
    this.clock = this.table.clock;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The live sessions (the operator console's list). */
  liveSessions(): LiveSession[] {
    return [...this.table.liveSessions(), ...this.inFlight];
  }

  /** One idle stage pass now (tests drive it with a fake clock). */
  sweep(): void {
    this.table.sweep();
  }

  /** The session a call runs in: the handle's, or a fresh one; a string is the `Error: …` to answer instead. */
  async acquire(handle: unknown, caller: string | undefined): Promise<HeldSession | string> {
    if (handle === undefined) return this.fresh(caller);
    if (typeof handle !== 'string' || !HANDLE_SHAPE.test(handle)) return MALFORMED_HANDLE;
    const shared = this.options.shared;
    let entry = this.entries.get(handle);
    // Made on another replica, perhaps: served here from its record.
    if (!entry && shared) {
      const adopted = await shared.once(handle, caller, () => this.adopt(shared, handle, caller));
      if (typeof adopted === 'string') return adopted;
      entry = adopted;
    }
    if (!entry || entry.caller !== caller) {
      const reason = this.table.releasedReason(handle, caller);
      return reason === undefined ? unknownHandleMessage(handle) : releasedHandleMessage(handle, reason);
    }
    const end = entry.activity.begin();
    if (shared && !(await shared.touch(handle))) {
      // Ended on another replica meanwhile: let go of it here too.
      end();
      this.letGo(handle, entry);
      return unknownHandleMessage(handle);
    }
    return {
      session: entry.session,
      finish: () => {
        end();
        return Promise.resolve(undefined);
      },
    };
  }

  /** Disposes every handle's session (server shutdown). */
  async closeAll(): Promise<void> {
    this.table.stop();
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) entry.slot.free();
    await Promise.allSettled(entries.map((entry) => entry.session.dispose()));
  }

  private fresh(caller: string | undefined): HeldSession | string {
    const slot = this.options.counter.take(caller);
    if (typeof slot === 'string') return this.tooMany(slot, caller);
    const session = this.host.openSession({ cwd: this.options.cwd, ...(caller !== undefined ? { caller } : {}) });
    // Listed while its first call runs (it may wait for an approval), before it has a handle or is let go.
    const running: LiveSession = { caller, activity: { session, openedAt: this.clock.now(), lastActiveAt: () => this.clock.now() } };
    this.inFlight.add(running);
    return {
      session,
      finish: async () => {
        this.inFlight.delete(running);
        if (!session.scope.holdsLastingState) {
          slot.free();
          await session.dispose();
          return undefined;
        }
        const handle = PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
        this.entries.set(handle, { session, caller, slot, activity: new SessionActivity(session, this.clock, this.options.runningTasks) });
        this.options.logger?.info(`mcp: session ${session.id} kept under a handle`);
        // Not recorded: this replica still serves it, the others answer as for an unknown handle.
        await this.options.shared
          ?.register(handle, { era: 'modern', caller, sessionId: session.id, cwd: session.cwd ?? this.options.cwd })
          .catch((error: unknown) => this.options.logger?.error(`mcp: session ${session.id} was not recorded in the session registry: ${messageOf(error)}`));
        return handle;
      },
    };
  }

  /** Releases a handle's session the server ends (idle, or to make room): its place at once, its host session in the background. */
  private end(handle: string, entry: Entry, cause: ReleaseCause): void {
    this.entries.delete(handle);
    entry.slot.free();
    const tasks = cause.kind !== 'evicted' && this.options.runningTasks(entry.session);
    this.options.logger?.info(`mcp: session ${entry.session.id} ended (${cause.kind})${tasks ? ' with its running background tasks' : ''}`);
    this.options.onReleased?.({ kind: cause.kind, clientSession: handle, session: entry.session.id, caller: entry.caller, withRunningTasks: Boolean(tasks) });
    this.dispose(handle, entry.session);
  }

  /**
   * The handle's session another replica made, when the registry has it and
   * `caller` made it: a slot of the session count and a host session under
   * its own id. Undefined when unknown (alike for every reason); a string is
   * the refusal when no slot is free.
   */
  private async adopt(shared: SharedSessions, handle: string, caller: string | undefined): Promise<Entry | string | undefined> {
    // A session this replica is letting go of leaves first: its host session id is free again.
    await this.disposing.get(handle);
    if (this.entries.has(handle)) return this.entries.get(handle);
    const record = await shared.find(handle, 'modern', caller);
    if (!record) return undefined;
    const slot = this.options.counter.take(caller);
    if (typeof slot === 'string') return this.tooMany(slot, caller);
    const session = this.host.openSession({ id: record.sessionId, cwd: record.cwd, ...(caller !== undefined ? { caller } : {}) });
    const entry: Entry = { session, caller, slot, activity: new SessionActivity(session, this.clock, this.options.runningTasks) };
    this.entries.set(handle, entry);
    this.options.logger?.info(`mcp: session ${session.id} served here under a handle another replica made`);
    countAdopted(this.host, 'modern');
    return entry;
  }

  /** Why no session more of `caller` fits: the cap, and when a place frees up. */
  private tooMany(refusal: SessionRefusal, caller: string | undefined): string {
    return tooManySessions(refusal, caller, this.options.counter.caps) + freedNote(this.options.counter.nextFreed(refusal, caller), this.clock.now());
  }

  /** Lets go of a shared session here that ended on another replica (its record is gone). */
  private letGo(handle: string, entry: Entry): void {
    if (this.entries.get(handle) !== entry) return;
    this.entries.delete(handle);
    entry.slot.free();
    this.dispose(handle, entry.session);
  }

  /** Disposes a handle's host session in the background, remembered until done. */
  private dispose(handle: string, session: HostSession): void {
    // A failed dispose is logged by the host; the handle is free again either way.
    const disposed = session.dispose().catch(() => undefined).finally(() => {
      if (this.disposing.get(handle) === disposed) this.disposing.delete(handle);
    });
    this.disposing.set(handle, disposed);
  }
}

/** Handles of one stdio client: never idle out (the pipe is the lifetime), at most `maxHandles`. */
export function stdioHandles(host: DshHost, cwd: string, maxHandles: number, logger?: Logger): SessionHandles {
  return new SessionHandles(host, {
    cwd,
    idle: { sessionIdleMs: 0 },
    counter: new SessionCounter({ maxSessions: maxHandles }),
    runningTasks: () => false,
    ...(logger ? { logger } : {}),
  });
}
