import type { NewSessionRecord, SessionRecord, SessionRegistry } from './session-registry.js';

/**
 * A registry whose store is known only once its engine connected (the
 * Kubernetes namespace and client): bound at composition, made on first use.
 * A failed connection is tried again by the next call.
 */
export class DeferredSessionRegistry implements SessionRegistry {
  private inner?: Promise<SessionRegistry>;
  private made?: SessionRegistry;

  constructor(
    private readonly placeholder: string,
    private readonly make: () => Promise<SessionRegistry>,
  ) {}

  get describe(): string {
    return this.made?.describe ?? this.placeholder;
  }

  register(record: NewSessionRecord): Promise<void> {
    return this.use((registry) => registry.register(record));
  }

  find(key: string): Promise<SessionRecord | undefined> {
    return this.use((registry) => registry.find(key));
  }

  touch(key: string): Promise<boolean> {
    return this.use((registry) => registry.touch(key));
  }

  remove(key: string): Promise<boolean> {
    return this.use((registry) => registry.remove(key));
  }

  claimExpired(now?: number): Promise<SessionRecord[]> {
    return this.use((registry) => registry.claimExpired(now));
  }

  liveSessionIds(): Promise<Set<string>> {
    return this.use((registry) => registry.liveSessionIds());
  }

  join(): Promise<void> {
    return this.use((registry) => registry.join());
  }

  /** Nothing joined before the store was made: nothing to leave. */
  leave(): Promise<void> {
    return this.made === undefined ? Promise.resolve() : this.made.leave();
  }

  othersAlive(): Promise<boolean> {
    return this.use((registry) => registry.othersAlive());
  }

  private async use<T>(action: (registry: SessionRegistry) => Promise<T>): Promise<T> {
    this.inner ??= this.make().then(
      (registry) => (this.made = registry),
      (error: unknown) => {
        this.inner = undefined;
        throw error;
      },
    );
    return action(await this.inner);
  }
}
