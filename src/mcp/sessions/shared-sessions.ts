import { sessionKey, type SessionEra, type SessionRecord, type SessionRegistry } from '../../providers/registry/session-registry.js';
import type { Logger } from '../../providers/logging/logger.js';
import { messageOf } from '../../core/describe-value.js';

/** What the HTTP server shares its sessions through (`--shared-sessions`; docs/shared-sessions.md). */
interface SharedSessionOptions {
  readonly registry: SessionRegistry;
  /** Ends a session's sandbox on every replica (a client closed it); the integrator supplies it. */
  readonly endShared?: (sessionId: string) => Promise<void>;
  /** The server's `--idle-timeout` and `--session-lifetime`: the record's end, whichever replica served it last. */
  readonly idleMs: number;
  readonly maxLifetimeMs: number;
  /** False under `--no-auth`: nobody is identified, every record's caller is `''`. */
  readonly identified: boolean;
  readonly logger?: Logger;
}

/** A session as the registry learns it: whose, which host session, where it runs. */
interface SharedSessionFacts {
  readonly era: SessionEra;
  readonly caller: string | undefined;
  readonly sessionId: string;
  readonly cwd: string;
  readonly client?: Readonly<Record<string, unknown>>;
}

/**
 * The HTTP server's side of the session registry, by client credential (an
 * `Mcp-Session-Id` or a session handle; the registry only ever sees its
 * hash). A replica records each session it opens, finds one another replica
 * opened when a request names a credential it does not hold, marks each
 * request's session used, and ends one for real only when its client closes
 * it; letting a session go locally (idle, shutdown) leaves its record to
 * expire in the registry.
 */
export class SharedSessions {
  /** Adoptions under way, by caller and credential: concurrent requests for one session adopt it once. */
  private readonly adopting = new Map<string, Promise<unknown>>();

  constructor(private readonly options: SharedSessionOptions) {}

  get describe(): string {
    return this.options.registry.describe;
  }

  register(credential: string, facts: SharedSessionFacts): Promise<void> {
    const { era, caller, sessionId, cwd, client } = facts;
    return this.options.registry.register({
      key: sessionKey(credential),
      era,
      caller: this.callerOf(caller),
      sessionId,
      cwd,
      ...(client ? { client } : {}),
      idleMs: this.options.idleMs,
      maxLifetimeMs: this.options.maxLifetimeMs,
    });
  }

  /**
   * The live record of `credential` of `era` when `caller` opened it; else
   * undefined, alike for an unknown credential, another caller's, another
   * era's, or one past its time that no reaper claimed yet (serving it would
   * bring it back).
   */
  async find(credential: string, era: SessionEra, caller: string | undefined, now = Date.now()): Promise<SessionRecord | undefined> {
    const record = await this.options.registry.find(sessionKey(credential));
    if (!record || record.era !== era || record.caller !== this.callerOf(caller)) return undefined;
    if (record.idleMs > 0 && now - record.lastUseAt >= record.idleMs) return undefined;
    if (record.maxLifetimeMs > 0 && now - record.createdAt >= record.maxLifetimeMs) return undefined;
    return record;
  }

  /** Runs `adopt` once for concurrent requests of `caller` naming `credential`; each gets its result. */
  once<T>(credential: string, caller: string | undefined, adopt: () => Promise<T>): Promise<T> {
    const key = `${caller ?? ''}\n${credential}`;
    const running = this.adopting.get(key) as Promise<T> | undefined;
    if (running) return running;
    const started = adopt().finally(() => this.adopting.delete(key));
    this.adopting.set(key, started);
    return started;
  }

  /** Marks the session used now; false when its record is gone (it ended on some replica). A registry failure keeps it. */
  async touch(credential: string): Promise<boolean> {
    try {
      return await this.options.registry.touch(sessionKey(credential));
    } catch (error) {
      this.options.logger?.warn(`mcp http: the session registry (${this.describe}) did not mark a session used: ${messageOf(error)}`);
      return true;
    }
  }

  /** Takes the record away (its client closed the session): from now on no replica serves it. True when this call removed it. */
  remove(credential: string): Promise<boolean> {
    return this.options.registry.remove(sessionKey(credential));
  }

  /** A caller as records name it. */
  private callerOf(caller: string | undefined): string {
    return this.options.identified ? (caller ?? '') : '';
  }

  /** Ends the host session's sandbox on every replica (after `remove` took its record). */
  async endEverywhere(sessionId: string): Promise<void> {
    try {
      await this.options.endShared?.(sessionId);
    } catch (error) {
      this.options.logger?.error(`mcp http: session ${sessionId} closed, but its sandbox was not ended everywhere: ${messageOf(error)}`);
    }
  }
}
