import { existingScopeOf, ScopeKey, scopeOf, type ScopedSession } from './session-scope.js';

/**
 * One provider's state of each session: made in the session's scope on first
 * use and released with it, plus the set of those still open, so the
 * provider's own disposal (host dispose, module unload) reaches every
 * session. The shape every provider with per-session state shares; none of
 * them keeps a table keyed by a session id.
 */
export class PerSession<T, S extends ScopedSession = ScopedSession> {
  private readonly key: ScopeKey<T>;
  private readonly live = new Set<T>();

  constructor(
    name: string,
    options: ConstructorParameters<typeof ScopeKey>[1],
    private readonly make: (session: S) => T,
    /** Runs when the session's scope releases it (its close, or an idle release of process holders). */
    private readonly release: (state: T) => void | Promise<void>,
  ) {
    this.key = new ScopeKey<T>(name, options);
  }

  /** `session`'s state, made on first use; throws once its scope is disposed. */
  of(session: S): T {
    return scopeOf(session).get(
      this.key,
      () => {
        const state = this.make(session);
        this.live.add(state);
        return state;
      },
      async (state) => {
        try {
          await this.release(state);
        } finally {
          this.live.delete(state);
        }
      },
    );
  }

  /** `session`'s state if it made one; another session's (a twin id, a forged context) is never found. */
  existing(session: unknown): T | undefined {
    return existingScopeOf(session)?.peek(this.key);
  }

  /** Whether `state` belongs to a session still open. */
  isOpen(state: T): boolean {
    return this.live.has(state);
  }

  /** Every open session's state, oldest first. */
  open(): T[] {
    return [...this.live];
  }
}
