// Issue 31's scripted agent (support/agent-script.ts) over two pod replicas
// (host processes over one namespace, acting as the service account of
// docs/kubernetes.md's Role): nothing of the session — no pod, no Lease —
// is left once the last replica stops (docs/shared-sessions.md).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LABELS } from '../../src/index.js';
import { leaseLapsesAt } from '../../src/providers/backends/kubernetes/lease-time.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { accountWith, coordination, core, documentedRules, scratchNamespace, sessionPods } from '../support/kube-kit.js';
import { ensureBuilt } from '../support/built-server.js';
import { AGENT_APPROVAL, AGENT_TOKEN, runAgentScript } from './support/agent-script.js';
import { describeBehindNginx, NEEDS_NGINX, UPSTREAM_HOST } from './support/round-robin-nginx.js';
import { replicaDirs, startReplica, type ReplicaDirs } from './support/shared-replicas.js';
import { pollUntilAsync } from '../support/poll-async.js';

/** Every shared session's Lease (docs/shared-sessions.md#registry). */
const SESSION_LEASES = `${LABELS.managed}=1,dsh-tools.shared-session=1`;
/** Every server's own Lease: a replica counts another alive while that one's is unexpired. */
const SERVER_LEASES = `${LABELS.managed}=1,${LABELS.instance}`;

const describeWithNginx = describeBehindNginx(describeWithCluster);

describeWithNginx(`shared sessions: a scripted 2026-era agent across two pod replicas${NEEDS_CLUSTER}${NEEDS_NGINX}`, () => {
  let dirs: ReplicaDirs;
  // A namespace of its own: another server's Lease there would count as a live replica.
  let ns: { name: string; remove: () => Promise<void> };
  let config: string;
  beforeAll(async () => {
    ensureBuilt();
    dirs = replicaDirs(`agent:${AGENT_TOKEN}\n`);
    ns = await scratchNamespace('dsh-agent-e2e');
    const own = path.join(dirs.root, ns.name);
    mkdirSync(own);
    const kubeconfig = await accountWith(ns.name, own, 'dsh-tools', documentedRules());
    config = path.join(own, 'dsh.json');
    writeFileSync(config, JSON.stringify({ kubernetes: { kubeconfig, namespace: ns.name, leaseSeconds: 6 }, approval: AGENT_APPROVAL }));
  }, 180_000);
  afterAll(async () => {
    // Shared pods and Leases outlive their servers: a failed run must leave none behind.
    await core.deleteCollectionNamespacedPod({ namespace: ns.name, gracePeriodSeconds: 0 }).catch(() => undefined);
    await ns?.remove();
    dirs?.cleanup();
  });

  const pods = async (sessionId: string) => (await sessionPods(sessionId, ns.name)).map((pod) => `pod ${pod.metadata!.name}`);
  const leases = async (sessionId: string) =>
    (await coordination.listNamespacedLease({ namespace: ns.name, labelSelector: SESSION_LEASES })).items
      .filter((lease) => lease.metadata?.annotations?.['dsh-tools.session-id'] === sessionId)
      .map((lease) => `lease ${lease.metadata!.name}`);
  const liveServers = async () =>
    (await coordination.listNamespacedLease({ namespace: ns.name, labelSelector: SERVER_LEASES })).items.filter(
      (lease) => lease.metadata?.deletionTimestamp === undefined && leaseLapsesAt(lease) > Date.now(),
    ).length;

  it('finishes 20 steps with every result right through a SIGKILL, a restart and a SIGTERM, and leaves no pod and no Lease', async () => {
    await runAgentScript({
      startReplica: (port) => {
        const args = ['--workspace', dirs.workspace, '--config', config, '--kubernetes', KIT_IMAGE, '--shared-sessions', '--shell', 'both', '--token-file', dirs.tokenFile];
        args.push('--allowed-host', UPSTREAM_HOST, '--reap-interval', '1', '--log-level', 'info', '--drain-timeout', '5');
        // dirs.tmp holds the session directories (hostPath volumes), on the kit's one node.
        return startReplica(port, args, dirs.env);
      },
      sandboxes: pods,
      leftovers: async (sessionId) => [...(await pods(sessionId)), ...(await leases(sessionId))],
      goneWithinMs: 30_000,
      // The SIGKILLed replica's Lease counts for up to leaseSeconds (6): the survivor's is the one left.
      killedReplicaGone: () => pollUntilAsync(async () => (await liveServers()) <= 1, 'only the surviving replica counts as alive', 15_000).then(() => undefined),
    });
  }, 120_000);
});
