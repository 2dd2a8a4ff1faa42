/** Names one per-session service of a scope (the name shows in a failed disposal's log line). */
export class ScopeKey<T> {
  /** Never set: carries the service's type so `get` and `peek` return it. */
  declare readonly type?: T;
  /** The service holds what a later call can use (a shell, background tasks): a session with it is worth keeping. */
  readonly outlivesCall: boolean;

  constructor(
    readonly name: string,
    options: { readonly outlivesCall?: boolean } = {},
  ) {
    this.outlivesCall = options.outlivesCall ?? false;
  }
}

/**
 * Where a session's own services live: each is made on its first use and
 * disposed when the session closes, newest first, so a service made from
 * another goes before it. Providers keep no per-session maps of their own.
 */
export interface SessionScope {
  readonly disposed: boolean;
  /**
   * The session's `key` service, made by `create` on first use; `dispose`
   * runs with the scope. Throws once the scope is disposed (a closed session
   * gets no new state).
   */
  get<T>(key: ScopeKey<T>, create: () => T, dispose?: (service: T) => void | Promise<void>): T;
  /**
   * The service if it was made and its disposer has not finished, else
   * undefined: while the scope disposes, a service whose turn has not come
   * (or whose disposer still runs) is still found.
   */
  peek<T>(key: ScopeKey<T>): T | undefined;
  /** A service whose key `outlivesCall` was made: the session holds something a later call can use. */
  readonly holdsLastingState: boolean;
  /** Runs `dispose` with the scope, in reverse order of adding. Added after disposal: runs at once. */
  add(name: string, dispose: () => void | Promise<void>): void;
}

interface Disposer {
  readonly name: string;
  readonly run: () => void | Promise<void>;
  /** The service it disposes (forgotten once it ran). */
  readonly key?: ScopeKey<unknown>;
  readonly service?: unknown;
}

/** What a scope does with a disposer that throws or rejects (the rest still run). */
export type DisposalFailure = (name: string, error: unknown) => void;

/** A session scope that owns its disposers (`dispose()` runs them, newest first, one at a time). */
export class DisposableScope implements SessionScope {
  private readonly services = new Map<ScopeKey<unknown>, unknown>();
  private readonly disposers: Disposer[] = [];
  private disposal: Promise<void> | undefined;

  constructor(private readonly onFailure: DisposalFailure) {}

  get disposed(): boolean {
    return this.disposal !== undefined;
  }

  get<T>(key: ScopeKey<T>, create: () => T, dispose?: (service: T) => void | Promise<void>): T {
    if (this.services.has(key)) return this.services.get(key) as T;
    if (this.disposed) throw new Error(`the session is disposed: no ${key.name} for it`);
    const service = create();
    this.services.set(key, service);
    if (dispose) this.disposers.push({ name: key.name, run: () => dispose(service), key, service });
    return service;
  }

  peek<T>(key: ScopeKey<T>): T | undefined {
    return this.services.get(key) as T | undefined;
  }

  get holdsLastingState(): boolean {
    if (this.disposed) return false;
    for (const key of this.services.keys()) if (key.outlivesCall) return true;
    return false;
  }

  /** What the scope will dispose, oldest first (diagnostics and tests). */
  get pending(): string[] {
    return this.disposers.map((disposer) => disposer.name);
  }

  add(name: string, dispose: () => void | Promise<void>): void {
    if (!this.disposed) {
      this.disposers.push({ name, run: dispose });
      return;
    }
    void this.runOne({ name, run: dispose });
  }

  /** Runs every disposer, newest first; a failing one is reported and the rest still run. Never rejects. */
  dispose(): Promise<void> {
    this.disposal ??= (async () => {
      // A disposer may add another (a service made during teardown): it runs too, before older ones.
      for (let next = this.disposers.pop(); next !== undefined; next = this.disposers.pop()) await this.runOne(next);
      this.services.clear();
    })();
    return this.disposal;
  }

  private async runOne(disposer: Disposer): Promise<void> {
    try {
      await disposer.run();
    } catch (error) {
      try {
        this.onFailure(disposer.name, error);
      } catch {
        // Reporting must not stop the teardown either.
      }
    } finally {
      if (disposer.key !== undefined && this.services.get(disposer.key) === disposer.service) this.services.delete(disposer.key);
    }
  }
}

/** What `scopeOf` needs of a session (a `SessionContext`). */
export interface ScopedSession {
  readonly id: string;
  readonly disposed: boolean;
  readonly scope?: SessionScope;
  onDispose(hook: () => void | Promise<void>): void;
}

const fallbackScopes = new WeakMap<ScopedSession, DisposableScope>();

/**
 * The scope of `session` if it has one already, without making one: a
 * lookup (another session's id, a caller that never stored anything) finds
 * nothing and leaves no trace. Undefined for anything that is not a session.
 */
export function existingScopeOf(session: unknown): SessionScope | undefined {
  if (typeof session !== 'object' || session === null) return undefined;
  return (session as ScopedSession).scope ?? fallbackScopes.get(session as ScopedSession);
}

/**
 * The scope of `session`: its own when it has one (every host session), else
 * one kept beside it and disposed through its `onDispose` (a hand-made
 * session in a test or an embedding).
 */
export function scopeOf(session: ScopedSession): SessionScope {
  if (session.scope !== undefined) return session.scope;
  let scope = fallbackScopes.get(session);
  if (scope === undefined) {
    const made = new DisposableScope((name, error) => {
      process.emitWarning(`session ${session.id}: disposing ${name} failed: ${String(error)}`);
    });
    scope = made;
    fallbackScopes.set(session, made);
    if (session.disposed) void made.dispose();
    else session.onDispose(() => made.dispose());
  }
  return scope;
}
