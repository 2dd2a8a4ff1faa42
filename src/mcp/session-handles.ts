import type { DshHost } from '../container/dsh-host.js';
import type { HostSession } from '../container/host-session.js';
import type { Logger } from '../providers/logging/logger.js';

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

export const MALFORMED_HANDLE = `"${HANDLE_ARGUMENT}" must be a session handle (dsh-s-…) from an earlier result`;

export interface HandleLimits {
  /** A session with no call in flight for this long is disposed; 0 keeps it until the server stops. */
  readonly idleTimeoutMs: number;
  /** Sessions held at once, counted together with `heldElsewhere` (the 2025-era sessions). */
  readonly maxSessions: number;
  readonly maxSessionsPerCaller?: number;
  /** Sessions the other era holds (total, and for one caller). */
  readonly heldElsewhere?: (caller: string | undefined) => { total: number; byCaller: number };
}

interface Entry {
  readonly session: HostSession;
  readonly caller: string | undefined;
  inFlight: number;
  timer?: NodeJS.Timeout;
}

/** A call's session: run the call, then `finish()` says which handle (if a new one) the result names. */
export interface HeldSession {
  readonly session: HostSession;
  finish(): Promise<string | undefined>;
}

export class SessionHandles {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly host: DshHost,
    private readonly options: { readonly cwd: string; readonly limits: HandleLimits; readonly logger?: Logger },
  ) {}

  get size(): number {
    return this.entries.size;
  }

  heldBy(caller: string | undefined): number {
    return [...this.entries.values()].filter((entry) => entry.caller === caller).length;
  }

  /** The session a call runs in: the handle's, or a fresh one; a string is the `Error: …` to answer instead. */
  acquire(handle: unknown, caller: string | undefined): HeldSession | string {
    if (handle === undefined) return this.fresh(caller);
    if (typeof handle !== 'string' || !HANDLE_SHAPE.test(handle)) return MALFORMED_HANDLE;
    const entry = this.entries.get(handle);
    if (!entry || entry.caller !== caller) return unknownHandleMessage(handle);
    entry.inFlight++;
    clearTimeout(entry.timer);
    return {
      session: entry.session,
      finish: () => {
        entry.inFlight--;
        this.arm(handle, entry);
        return Promise.resolve(undefined);
      },
    };
  }

  /** Disposes every handle's session (server shutdown). */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) clearTimeout(entry.timer);
    await Promise.allSettled(entries.map((entry) => entry.session.dispose()));
  }

  private fresh(caller: string | undefined): HeldSession | string {
    const full = this.refusal(caller);
    if (full) return full;
    const session = this.host.openSession({ cwd: this.options.cwd, ...(caller !== undefined ? { caller } : {}) });
    return {
      session,
      finish: async () => {
        if (!session.scope.holdsLastingState) {
          await session.dispose();
          return undefined;
        }
        const handle = PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
        const entry: Entry = { session, caller, inFlight: 0 };
        this.entries.set(handle, entry);
        this.arm(handle, entry);
        this.options.logger?.info(`mcp: session ${session.id} kept under a handle`);
        return handle;
      },
    };
  }

  private refusal(caller: string | undefined): string | undefined {
    const { limits } = this.options;
    const elsewhere = limits.heldElsewhere?.(caller) ?? { total: 0, byCaller: 0 };
    if (this.entries.size + elsewhere.total >= limits.maxSessions) {
      return `too many sessions: this server holds at most ${limits.maxSessions} (--max-sessions); pass the "${HANDLE_ARGUMENT}" of one you hold, or wait for idle ones to expire`;
    }
    if (limits.maxSessionsPerCaller !== undefined && this.heldBy(caller) + elsewhere.byCaller >= limits.maxSessionsPerCaller) {
      return `too many sessions for caller "${caller ?? 'default'}": at most ${limits.maxSessionsPerCaller} each (--max-sessions-per-caller); pass the "${HANDLE_ARGUMENT}" of one you hold, or wait for idle ones to expire`;
    }
    return undefined;
  }

  private arm(handle: string, entry: Entry): void {
    clearTimeout(entry.timer);
    const idle = this.options.limits.idleTimeoutMs;
    if (idle <= 0 || entry.inFlight > 0) return;
    entry.timer = setTimeout(() => {
      if (this.entries.get(handle) !== entry) return;
      this.entries.delete(handle);
      this.options.logger?.info(`mcp: session ${entry.session.id} ended (idle)`);
      void entry.session.dispose();
    }, idle);
    entry.timer.unref();
  }
}
