// The behaviour every SessionRegistry owes the replicas, run against each store (files, Leases).
import type { Clock } from '../../../src/providers/logging/logger.js';
import { sessionKey, type NewSessionRecord, type SessionRegistry } from '../../../src/providers/registry/session-registry.js';

export const T0 = 1_800_000_000_000;
export const IDLE = 60_000;

export function recordOf(name: string, extra: Partial<NewSessionRecord> = {}): NewSessionRecord {
  return { key: sessionKey(name), era: 'legacy', caller: 'alice', sessionId: `s-${name}`, cwd: '/work', idleMs: IDLE, maxLifetimeMs: 0, ...extra };
}

export interface RegistryUnderTest {
  /** A registry over the suite's store reading time from `clock`; `beforeClaim` runs between reading a record as expired and claiming it. */
  open(clock: Clock, beforeClaim?: (key: string) => Promise<void> | void): SessionRegistry;
  /** `count` registries as separate replicas would hold them (default: `open` each). */
  replicas?(count: number, clock: Clock): Promise<SessionRegistry[]>;
  /** Asserts the store holds the records of `keys` and nothing else (no claim, no temporary left behind). */
  expectStoreHolds(keys: readonly string[]): Promise<void>;
  /** How many records and idle periods the races take (a cluster answers slower than a directory). */
  readonly sizes: { readonly lifetimeIdles: number; readonly claimers: number; readonly expired: number; readonly fresh: number; readonly races: number };
}

/** Declares the contract's tests in the calling `describe`; `under()` is read in each test, after the suite's hooks ran. */
export function itKeepsTheRegistryContract(under: () => RegistryUnderTest): void {
  let time: number;
  const clock: Clock = { now: () => time };
  beforeEach(() => {
    time = T0;
  });

  it('registers, finds, touches and removes a record, and answers gone after the remove', async () => {
    const store = under();
    const registry = store.open(clock);
    const record = recordOf('one', { era: 'modern', client: { protocolVersion: '2025-06-18', clientInfo: { name: 'c' } }, maxLifetimeMs: 3_600_000 });
    await registry.register(record);
    expect(await registry.find(record.key)).toEqual({ ...record, createdAt: T0, lastUseAt: T0 });

    time = T0 + 5_000;
    expect(await registry.touch(record.key)).toBe(true);
    expect((await store.open(clock).find(record.key))?.lastUseAt).toBe(T0 + 5_000);
    expect(await registry.liveSessionIds()).toEqual(new Set(['s-one']));

    expect(await registry.remove(record.key)).toBe(true);
    expect(await registry.remove(record.key)).toBe(false);
    expect(await registry.find(record.key)).toBeUndefined();
    expect(await registry.touch(record.key)).toBe(false);
    expect(await registry.liveSessionIds()).toEqual(new Set());
    await store.expectStoreHolds([]);
  });

  it('refuses a key taken already', async () => {
    const registry = under().open(clock);
    await registry.register(recordOf('one'));
    await expect(registry.register(recordOf('one', { sessionId: 'other' }))).rejects.toThrow(/exists already/);
    expect((await registry.find(sessionKey('one')))?.sessionId).toBe('s-one');
  });

  it('refuses a key that is not 64 lower-case hex digits, in every call', async () => {
    const store = under();
    const registry = store.open(clock);
    for (const key of ['../../etc/passwd', 'abc', sessionKey('x').toUpperCase(), `${sessionKey('x')}.json`]) {
      await expect(registry.register(recordOf('x', { key }))).rejects.toThrow(/64 lower-case hex/);
      await expect(registry.find(key)).rejects.toThrow(/64 lower-case hex/);
      await expect(registry.touch(key)).rejects.toThrow(/64 lower-case hex/);
      await expect(registry.remove(key)).rejects.toThrow(/64 lower-case hex/);
    }
    await store.expectStoreHolds([]);
  });

  it('claims a record once it has been idle its idle time, never before, and ends it for every other call', async () => {
    const store = under();
    const registry = store.open(clock);
    await registry.register(recordOf('idle'));
    await registry.register(recordOf('never', { idleMs: 0 }));
    expect(await registry.claimExpired(T0 + IDLE - 1)).toEqual([]);
    expect(await registry.claimExpired(T0 + IDLE)).toEqual([{ ...recordOf('idle'), createdAt: T0, lastUseAt: T0 }]);
    expect(await registry.claimExpired(T0 + IDLE)).toEqual([]);
    time = T0 + IDLE + 5_000;
    expect(await registry.touch(sessionKey('idle'))).toBe(false);
    expect(await registry.remove(sessionKey('idle'))).toBe(false);
    expect(await registry.find(sessionKey('idle'))).toBeUndefined();
    // An idle time of 0 is no limit.
    expect(await registry.claimExpired(T0 + 1_000 * IDLE)).toEqual([]);
    expect(await registry.liveSessionIds()).toEqual(new Set(['s-never']));
    await store.expectStoreHolds([sessionKey('never')]);
  });

  it('counts idle time from the last touch, and claims a busy session at its lifetime', async () => {
    const store = under();
    const registry = store.open(clock);
    const lifetime = store.sizes.lifetimeIdles * IDLE;
    await registry.register(recordOf('busy', { maxLifetimeMs: lifetime }));
    for (time = T0 + IDLE / 2; time < T0 + lifetime; time += IDLE / 2) {
      expect(await registry.touch(sessionKey('busy'))).toBe(true);
      expect(await registry.claimExpired(time + IDLE / 2 - 1)).toEqual([]);
    }
    const [claimed] = await registry.claimExpired(T0 + lifetime);
    expect(claimed?.key).toBe(sessionKey('busy'));
    expect(claimed?.lastUseAt).toBe(T0 + lifetime - IDLE / 2);
  });

  it('does not claim a record touched between its read as idle and the claim', async () => {
    const store = under();
    const other = store.open(clock);
    let touched: boolean | undefined;
    const reaper = store.open(clock, async (key) => {
      time = T0 + IDLE + 10;
      touched = await other.touch(key);
    });
    await reaper.register(recordOf('raced'));
    expect(await reaper.claimExpired(T0 + IDLE + 20)).toEqual([]);
    expect(touched).toBe(true);
    expect((await other.find(sessionKey('raced')))?.lastUseAt).toBe(T0 + IDLE + 10);
    await store.expectStoreHolds([sessionKey('raced')]);
  });

  it('gives each expired record to exactly one of several claimers at once', async () => {
    const store = under();
    const replicas = store.replicas === undefined ? Array.from({ length: store.sizes.claimers }, () => store.open(clock)) : await store.replicas(store.sizes.claimers, clock);
    const expired = Array.from({ length: store.sizes.expired }, (_, i) => recordOf(`old-${i}`));
    const fresh = Array.from({ length: store.sizes.fresh }, (_, i) => recordOf(`new-${i}`));
    await Promise.all(expired.map((record) => replicas[0]!.register(record)));
    time = T0 + IDLE / 2;
    await Promise.all(fresh.map((record) => replicas[0]!.register(record)));
    const results = await Promise.all(replicas.map((replica) => replica.claimExpired(T0 + IDLE)));
    expect(results.flat().map((record) => record.key).sort()).toEqual(expired.map((record) => record.key).sort());
    expect([...(await replicas[1]!.liveSessionIds())].sort()).toEqual(fresh.map((record) => record.sessionId).sort());
  });

  it('lets a touch racing claims either keep its record or answer false, never both true and claimed', async () => {
    const store = under();
    const reaper = store.open(clock);
    const user = store.open(clock);
    const records = Array.from({ length: store.sizes.races }, (_, i) => recordOf(`race-${i}`));
    await Promise.all(records.map((record) => reaper.register(record)));
    time = T0 + IDLE + 1;
    const [claimed, touches] = await Promise.all([
      Promise.all([reaper.claimExpired(T0 + IDLE), store.open(clock).claimExpired(T0 + IDLE)]),
      Promise.all(records.map((record) => user.touch(record.key))),
    ]);
    const ended = new Set(claimed.flat().map((record) => record.key));
    for (const [i, record] of records.entries()) {
      const alive = (await reaper.find(record.key)) !== undefined;
      expect({ key: i, touched: touches[i], alive, ended: ended.has(record.key) }).toEqual({ key: i, touched: alive, alive, ended: !alive });
    }
  });
}
