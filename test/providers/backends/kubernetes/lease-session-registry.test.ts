// Shared session records as Leases on a real cluster: one per session, each expired one claimed by exactly one replica.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LABELS } from '../../../../src/index.js';
import { connectKube, type KubeClient } from '../../../../src/providers/backends/kubernetes/kube-client.js';
import { microTime } from '../../../../src/providers/backends/kubernetes/lease-time.js';
import { LeaseSessionRegistry, type LeaseSessionRegistryOptions } from '../../../../src/providers/backends/kubernetes/lease-session-registry.js';
import { reapExpiredLeases, ServerLease } from '../../../../src/providers/backends/kubernetes/server-lease.js';
import { sessionKey, type NewSessionRecord } from '../../../../src/providers/registry/session-registry.js';
import { NEEDS_CLUSTER, describeWithCluster } from '../../../support/kubernetes-cluster.js';
import { coordination, scratchNamespace, weakAccount } from '../../../support/kube-kit.js';

const T0 = 1_800_000_000_000;
const IDLE = 60_000;

function recordOf(name: string, extra: Partial<NewSessionRecord> = {}): NewSessionRecord {
  return { key: sessionKey(name), era: 'legacy', caller: 'alice', sessionId: `s-${name}`, cwd: '/work', idleMs: IDLE, maxLifetimeMs: 0, ...extra };
}

describeWithCluster(`session records as leases${NEEDS_CLUSTER}`, () => {
  let ns: { name: string; remove: () => Promise<void> };
  let client: KubeClient;
  let time: number;
  const clock = { now: () => time };
  const open = (options: LeaseSessionRegistryOptions = {}): LeaseSessionRegistry => new LeaseSessionRegistry(client, { clock, ...options });
  const sessionLeases = async (): Promise<string[]> =>
    (await coordination.listNamespacedLease({ namespace: ns.name, labelSelector: 'dsh-tools.shared-session=1' })).items.map((lease) => lease.metadata!.name!).sort();

  beforeAll(async () => {
    ns = await scratchNamespace('dsh-registry');
    client = await connectKube({ namespace: ns.name });
  });
  afterAll(() => ns.remove());
  beforeEach(async () => {
    time = T0;
    await coordination.deleteCollectionNamespacedLease({ namespace: ns.name });
  });

  it('keeps a record as a labelled Lease: registers, finds, touches and removes it', async () => {
    const registry = open();
    const record = recordOf('one', { era: 'modern', client: { protocolVersion: '2025-06-18', clientInfo: { name: 'c' } }, maxLifetimeMs: 3_600_000 });
    await registry.register({ ...record, stray: 'not stored' } as NewSessionRecord);
    expect(registry.describe).toBe(`leases in namespace ${ns.name}`);
    const lease = await coordination.readNamespacedLease({ name: `dsh-session-${record.key.slice(0, 40)}`, namespace: ns.name });
    expect(lease.metadata!.labels).toEqual({ [LABELS.managed]: '1', 'dsh-tools.shared-session': '1', 'dsh-tools.session-key': record.key.slice(0, 63) });
    expect(lease.metadata!.annotations).toMatchObject({ 'dsh-tools.session-key': record.key, 'dsh-tools.session-id': 's-one', 'dsh-tools.idle-ms': '60000', 'dsh-tools.created-at': String(T0) });
    expect(JSON.stringify(lease)).not.toContain('stray');
    expect(lease.spec!.leaseDurationSeconds).toBe(60);
    expect(await registry.find(record.key)).toEqual({ ...record, createdAt: T0, lastUseAt: T0 });

    time = T0 + 5_000;
    expect(await registry.touch(record.key)).toBe(true);
    expect((await open().find(record.key))?.lastUseAt).toBe(T0 + 5_000);
    expect(await registry.liveSessionIds()).toEqual(new Set(['s-one']));

    expect(await registry.remove(record.key)).toBe(true);
    expect(await registry.remove(record.key)).toBe(false);
    expect(await registry.find(record.key)).toBeUndefined();
    expect(await registry.touch(record.key)).toBe(false);
    expect(await sessionLeases()).toEqual([]);
  });

  it('refuses a taken key and a malformed one, and finds nothing in a Lease that holds another key', async () => {
    const registry = open();
    await registry.register(recordOf('one'));
    await expect(registry.register(recordOf('one', { sessionId: 'other' }))).rejects.toThrow(/exists already/);
    for (const key of ['../x', 'abc', sessionKey('x').toUpperCase()]) {
      await expect(registry.find(key)).rejects.toThrow(/64 lower-case hex/);
      await expect(registry.touch(key)).rejects.toThrow(/64 lower-case hex/);
    }
    // A key that shares the first 40 hex (the Lease name) is not the record's key.
    const forged = sessionKey('one').slice(0, 40) + '0'.repeat(24);
    expect(await registry.find(forged)).toBeUndefined();
    expect((await registry.find(sessionKey('one')))?.sessionId).toBe('s-one');
  });

  it('claims a record once idle, never before, and then answers gone to touch, remove and find', async () => {
    const registry = open();
    await registry.register(recordOf('idle'));
    await registry.register(recordOf('never', { idleMs: 0 }));
    expect(await registry.claimExpired(T0 + IDLE - 1)).toEqual([]);
    expect(await registry.claimExpired(T0 + IDLE)).toEqual([{ ...recordOf('idle'), createdAt: T0, lastUseAt: T0 }]);
    expect(await registry.claimExpired(T0 + IDLE)).toEqual([]);
    time = T0 + IDLE + 5_000;
    expect(await registry.touch(sessionKey('idle'))).toBe(false);
    expect(await registry.remove(sessionKey('idle'))).toBe(false);
    expect(await registry.find(sessionKey('idle'))).toBeUndefined();
    expect(await registry.claimExpired(T0 + 1_000 * IDLE)).toEqual([]);
    expect(await registry.liveSessionIds()).toEqual(new Set(['s-never']));
  });

  it('counts idle time from the last touch, and claims a busy session at its lifetime', async () => {
    const registry = open();
    await registry.register(recordOf('busy', { maxLifetimeMs: 4 * IDLE }));
    for (time = T0 + IDLE / 2; time < T0 + 4 * IDLE; time += IDLE / 2) {
      expect(await registry.touch(sessionKey('busy'))).toBe(true);
      expect(await registry.claimExpired(time + IDLE / 2 - 1)).toEqual([]);
    }
    const [claimed] = await registry.claimExpired(T0 + 4 * IDLE);
    expect(claimed?.key).toBe(sessionKey('busy'));
    expect(claimed?.lastUseAt).toBe(T0 + 4 * IDLE - IDLE / 2);
  });

  it('does not claim a record touched between the list that found it idle and the delete', async () => {
    const other = open();
    let touched: boolean | undefined;
    const reaper = open({
      beforeClaim: async (key) => {
        time = T0 + IDLE + 10;
        touched = await other.touch(key);
      },
    });
    await reaper.register(recordOf('raced'));
    expect(await reaper.claimExpired(T0 + IDLE + 20)).toEqual([]);
    expect(touched).toBe(true);
    expect((await other.find(sessionKey('raced')))?.lastUseAt).toBe(T0 + IDLE + 10);
  });

  it('gives each expired record to exactly one of several claimers at once', async () => {
    const clients = await Promise.all([1, 2, 3].map(() => connectKube({ namespace: ns.name })));
    const replicas = clients.map((each) => new LeaseSessionRegistry(each, { clock }));
    const expired = Array.from({ length: 15 }, (_, i) => recordOf(`old-${i}`));
    const fresh = Array.from({ length: 3 }, (_, i) => recordOf(`new-${i}`));
    await Promise.all(expired.map((record) => replicas[0]!.register(record)));
    time = T0 + IDLE / 2;
    await Promise.all(fresh.map((record) => replicas[0]!.register(record)));
    const results = await Promise.all(replicas.map((replica) => replica.claimExpired(T0 + IDLE)));
    expect(results.flat().map((record) => record.key).sort()).toEqual(expired.map((record) => record.key).sort());
    expect([...(await replicas[1]!.liveSessionIds())].sort()).toEqual(fresh.map((record) => record.sessionId).sort());
  });

  it('lets a touch racing claims either keep its record or answer false, never both true and claimed', async () => {
    const reaper = open();
    const user = open();
    const records = Array.from({ length: 20 }, (_, i) => recordOf(`race-${i}`));
    await Promise.all(records.map((record) => reaper.register(record)));
    time = T0 + IDLE + 1;
    const [claimed, touches] = await Promise.all([
      Promise.all([reaper.claimExpired(T0 + IDLE), open().claimExpired(T0 + IDLE)]),
      Promise.all(records.map((record) => user.touch(record.key))),
    ]);
    const ended = new Set(claimed.flat().map((record) => record.key));
    for (const [i, record] of records.entries()) {
      const alive = (await reaper.find(record.key)) !== undefined;
      expect({ key: i, touched: touches[i], alive, ended: ended.has(record.key) }).toEqual({ key: i, touched: alive, alive, ended: !alive });
    }
  });

  it("leaves session leases to the claim: the server leases' reaper takes only a dead server's", async () => {
    await open().register(recordOf('kept', { idleMs: 1_000 }));
    await deadServerLease(ns.name);
    expect(await reapExpiredLeases(client, T0 + 1_000 * IDLE)).toBe(1);
    expect(await sessionLeases()).toHaveLength(1);
    expect((await coordination.listNamespacedLease({ namespace: ns.name })).items).toHaveLength(1);
  });

  it('tells whether another server holds a live lease in the namespace', async () => {
    const self = new ServerLease(client, 'registry-self', 30);
    const registry = new LeaseSessionRegistry(client, { self });
    try {
      await registry.join();
      expect((await coordination.readNamespacedLease({ name: self.name, namespace: ns.name })).metadata!.labels![LABELS.instance]).toBe('registry-self');
      await open().register(recordOf('not-a-server'));
      expect(await registry.othersAlive()).toBe(false);
      // A server that died: its lease stopped being renewed long ago.
      await deadServerLease(ns.name);
      expect(await registry.othersAlive()).toBe(false);
      const other = new ServerLease(client, 'registry-other', 30);
      await other.acquire();
      try {
        expect(await registry.othersAlive()).toBe(true);
      } finally {
        await other.release();
      }
      expect(await registry.othersAlive()).toBe(false);
      await registry.leave();
    } finally {
      await self.release();
    }
  });

  it('works with the lease verbs docs/kubernetes.md grants the server (create, get, list, patch, delete)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-registry-rbac-'));
    const weak = await scratchNamespace('dsh-registry-rbac');
    try {
      const registry = new LeaseSessionRegistry(await connectKube({ kubeconfig: await weakAccount(weak.name, dir), namespace: weak.name }), { clock });
      await registry.register(recordOf('rbac'));
      expect(await registry.find(sessionKey('rbac'))).toBeDefined();
      time = T0 + 2_000;
      expect(await registry.touch(sessionKey('rbac'))).toBe(true);
      expect(await registry.liveSessionIds()).toEqual(new Set(['s-rbac']));
      expect(await registry.othersAlive()).toBe(false);
      expect((await registry.claimExpired(T0 + 2_000 + IDLE)).map((record) => record.key)).toEqual([sessionKey('rbac')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await weak.remove();
    }
  });

  it('an account that may not create leases fails the join with the verb, not an API body', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-registry-rbac-'));
    const weak = await scratchNamespace('dsh-registry-rbac');
    try {
      const weakClient = await connectKube({ kubeconfig: await weakAccount(weak.name, dir, undefined, ['get', 'list', 'patch', 'delete']), namespace: weak.name });
      const registry = new LeaseSessionRegistry(weakClient, { self: new ServerLease(weakClient, 'registry-weak', 30) });
      await expect(registry.join()).rejects.toThrow(/^session registry: forbidden by RBAC \(create leases\): leases\.coordination\.k8s\.io is forbidden/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await weak.remove();
    }
  });
});

/** The lease of a server that died a minute ago (no longer renewed). */
async function deadServerLease(namespace: string): Promise<void> {
  await coordination.createNamespacedLease({
    namespace,
    body: {
      metadata: { name: 'dsh-tools-dead', labels: { [LABELS.managed]: '1', [LABELS.instance]: 'dead' } },
      spec: { leaseDurationSeconds: 5, renewTime: microTime(new Date(Date.now() - 60_000)) as never },
    },
  });
}
