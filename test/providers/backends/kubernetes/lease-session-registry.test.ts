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
import { IDLE, itKeepsTheRegistryContract, recordOf, T0 } from '../../support/session-registry-contract.js';

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

  itKeepsTheRegistryContract(() => ({
    open: (at, beforeClaim) => new LeaseSessionRegistry(client, { clock: at, ...(beforeClaim === undefined ? {} : { beforeClaim }) }),
    // Each replica its own connection, as separate servers hold them.
    replicas: async (count, at) => (await Promise.all(Array.from({ length: count }, () => connectKube({ namespace: ns.name })))).map((each) => new LeaseSessionRegistry(each, { clock: at })),
    expectStoreHolds: async (keys) => expect(await sessionLeases()).toEqual(keys.map((key) => `dsh-session-${key.slice(0, 40)}`).sort()),
    sizes: { lifetimeIdles: 4, claimers: 3, expired: 15, fresh: 3, races: 20 },
  }));

  it('keeps a record as a labelled Lease of its fields only', async () => {
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
  });

  it('finds nothing in a Lease that holds another key', async () => {
    const registry = open();
    await registry.register(recordOf('one'));
    // A key that shares the first 40 hex (the Lease name) is not the record's key.
    const forged = sessionKey('one').slice(0, 40) + '0'.repeat(24);
    expect(await registry.find(forged)).toBeUndefined();
    expect((await registry.find(sessionKey('one')))?.sessionId).toBe('s-one');
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
