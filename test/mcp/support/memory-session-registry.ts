// A session registry in memory for HTTP-layer tests: what the seam
// (src/providers/registry/session-registry.ts) promises, kept in one process
// so several servers of a test can share it. It counts what the servers ask
// of it, for tests that check a session was found once or removed, and can
// hold its answers to `find` (to line up concurrent requests).
import { jest } from '@jest/globals';
import { SharedSessions } from '../../../src/mcp/sessions/shared-sessions.js';
import type { NewSessionRecord, SessionRecord, SessionRegistry } from '../../../src/providers/registry/session-registry.js';

export class MemorySessionRegistry implements SessionRegistry {
  readonly describe = 'in memory (test)';
  readonly records = new Map<string, SessionRecord>();
  /** How many `find` calls each key got. */
  readonly finds = new Map<string, number>();
  /** While set, `find` answers only once it resolves. */
  findsHeldUntil?: Promise<void>;

  constructor(private readonly now: () => number = Date.now) {}

  register(record: NewSessionRecord): Promise<void> {
    if (this.records.has(record.key)) return Promise.reject(new Error(`session record ${record.key} exists already`));
    const at = this.now();
    this.records.set(record.key, { ...record, createdAt: at, lastUseAt: at });
    return Promise.resolve();
  }

  async find(key: string): Promise<SessionRecord | undefined> {
    this.finds.set(key, (this.finds.get(key) ?? 0) + 1);
    await this.findsHeldUntil;
    return this.records.get(key);
  }

  touch(key: string): Promise<boolean> {
    const record = this.records.get(key);
    if (record) this.records.set(key, { ...record, lastUseAt: this.now() });
    return Promise.resolve(record !== undefined);
  }

  remove(key: string): Promise<boolean> {
    return Promise.resolve(this.records.delete(key));
  }

  claimExpired(now = this.now()): Promise<SessionRecord[]> {
    const expired = [...this.records.values()].filter(
      (record) => (record.idleMs > 0 && now - record.lastUseAt >= record.idleMs) || (record.maxLifetimeMs > 0 && now - record.createdAt >= record.maxLifetimeMs),
    );
    for (const record of expired) this.records.delete(record.key);
    return Promise.resolve(expired);
  }

  liveSessionIds(): Promise<Set<string>> {
    return Promise.resolve(new Set([...this.records.values()].map((record) => record.sessionId)));
  }

  // One registry serves every replica of a test: no replica is told of the others.
  join(): Promise<void> {
    return Promise.resolve();
  }

  leave(): Promise<void> {
    return Promise.resolve();
  }

  othersAlive(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

/**
 * Holds `registry`'s finds until `SharedSessions.once` was called `count`
 * times (each request that looks for an unknown credential calls it first),
 * so that many requests are all under way before any adoption proceeds.
 */
export function holdFindsUntilAsked(registry: MemorySessionRegistry, count: number): () => void {
  let asked = 0;
  let release!: () => void;
  registry.findsHeldUntil = new Promise((resolve) => (release = resolve));
  const once = SharedSessions.prototype.once;
  const spy = jest.spyOn(SharedSessions.prototype, 'once').mockImplementation(function (this: SharedSessions, ...args: Parameters<SharedSessions['once']>) {
    if (++asked === count) release();
    return once.apply(this, args);
  } as SharedSessions['once']);
  return () => {
    spy.mockRestore();
    registry.findsHeldUntil = undefined;
  };
}
