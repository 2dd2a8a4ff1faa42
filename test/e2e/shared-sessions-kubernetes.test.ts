// Two `serve --http --kubernetes --shared-sessions` replicas over one
// namespace behind nginx's round-robin (no affinity), one real MCP client:
// the session's pod and its Lease belong to the session, so either replica
// serves each request, one SIGKILLed and started again loses nothing, one
// SIGTERMed leaves the pod to the other, and the client's close removes the
// Lease and the pod (docs/shared-sessions.md).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LABELS } from '../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { accountWith, coordination, core, documentedRules, scratchNamespace, sessionPods } from '../support/kube-kit.js';
import { ensureBuilt } from '../support/built-server.js';
import { callTool, textOf } from '../support/mcp-clients.js';
import { describeBehindNginx, NEEDS_NGINX, startRoundRobinNginx, UPSTREAM_HOST, type RoundRobinProxy } from './support/round-robin-nginx.js';
import { foreignStatus, freePort, replicaDirs, startReplica, stopReplicas, type Replica, type ReplicaDirs } from './support/shared-replicas.js';
import { pollUntilAsync } from '../support/poll-async.js';

const TOKEN = 'shared-sessions-k8s-token-0123456789';
const OTHER_TOKEN = 'shared-sessions-k8s-other-9876543210';
/** Every shared session's Lease (docs/shared-sessions.md#registry). */
const SESSION_LEASES = `${LABELS.managed}=1,dsh-tools.shared-session=1`;

const describeWithNginx = describeBehindNginx(describeWithCluster);

describeWithNginx(`shared sessions: two pod replicas behind round-robin nginx${NEEDS_CLUSTER}${NEEDS_NGINX}`, () => {
  let dirs: ReplicaDirs;
  // A namespace per test: another server's Lease there would count as a live replica.
  let ns: { name: string; remove: () => Promise<void> };
  let config: string;
  beforeAll(() => {
    ensureBuilt();
    dirs = replicaDirs(`agent:${TOKEN}\nother:${OTHER_TOKEN}\n`);
  }, 180_000);
  beforeEach(async () => {
    ns = await scratchNamespace('dsh-shared-e2e');
    const own = path.join(dirs.root, ns.name);
    mkdirSync(own);
    // The replicas act as the service account of docs/kubernetes.md's Role: what it grants is what shared sessions need.
    const kubeconfig = await accountWith(ns.name, own, 'dsh-tools', documentedRules());
    config = path.join(own, 'dsh.json');
    writeFileSync(config, JSON.stringify({ kubernetes: { kubeconfig, namespace: ns.name, leaseSeconds: 6 } }));
  }, 60_000);
  afterEach(() => ns.remove());
  afterAll(() => dirs?.cleanup());

  const start = (port: number): Promise<Replica> => {
    const args = ['--workspace', dirs.workspace, '--config', config, '--kubernetes', KIT_IMAGE, '--shared-sessions', '--token-file', dirs.tokenFile];
    args.push('--allowed-host', UPSTREAM_HOST, '--reap-interval', '1', '--log-level', 'info', '--drain-timeout', '5');
    // dirs.tmp holds the session directories (hostPath volumes), on the kit's one node.
    return startReplica(port, args, dirs.env);
  };
  const sessionLeases = async (sessionId: string) =>
    (await coordination.listNamespacedLease({ namespace: ns.name, labelSelector: SESSION_LEASES })).items.filter(
      (lease) => lease.metadata?.annotations?.['dsh-tools.session-id'] === sessionId,
    );
  const podNames = async (sessionId: string) => (await sessionPods(sessionId, ns.name)).map((pod) => pod.metadata!.name);

  /** Shared pods and Leases outlive their servers: a failed run must leave none behind. */
  async function removeLeftovers(sessionId: string | undefined): Promise<void> {
    if (sessionId !== undefined) {
      await core.deleteCollectionNamespacedPod({ namespace: ns.name, labelSelector: `${LABELS.session}=${sessionId}`, gracePeriodSeconds: 0 }).catch(() => undefined);
    }
    await coordination.deleteCollectionNamespacedLease({ namespace: ns.name, labelSelector: SESSION_LEASES }).catch(() => undefined);
  }

  it('serves one session from either replica through a SIGKILL and a SIGTERM, and removes its Lease and pod when the client leaves', async () => {
    const ports = [await freePort(), await freePort()];
    const replicas = [await start(ports[0]!), await start(ports[1]!)];
    let proxy: RoundRobinProxy | undefined;
    let client: Client | undefined;
    let sessionId: string | undefined;
    try {
      proxy = await startRoundRobinNginx(await freePort(), ports);
      const transport = new StreamableHTTPClientTransport(proxy.url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
      client = new Client({ name: 'shared-sessions-k8s-e2e', version: '1.0.0' });
      await client.connect(transport);
      const run = async (command: string) => textOf(await callTool(client!, 'bash', { command, description: 'Scripted step' }));
      const step = (n: number) => run(`echo ${n} >> /tmp/steps; echo "$DSH_SESSION_ID $(cat /etc/hostname)"`);

      const [id, hostname] = (await step(1)).split(' ');
      sessionId = id!;
      expect(sessionId).toMatch(/\S/);
      // The pod's hostname is its name: the one pod labelled with the session, and the one Lease recording it.
      const [pod] = await sessionPods(sessionId, ns.name);
      expect(await podNames(sessionId)).toEqual([hostname]);
      expect(await sessionLeases(sessionId)).toHaveLength(1);
      const same = `${sessionId} ${hostname}`;
      // Round-robin: these alternate between the replicas; every one sees the same pod and its /tmp.
      for (let n = 2; n <= 6; n++) expect(await step(n)).toBe(same);
      expect(await run('tr "\\n" " " </tmp/steps')).toBe('1 2 3 4 5 6 ');
      expect(replicas.map((replica) => replica.stderr()).join('')).toMatch(/served here from now on \(opened on another replica\)/);

      // Another caller holding the session id is told it is unknown, on either replica.
      for (let attempt = 0; attempt < 2; attempt++) expect(await foreignStatus(proxy.url, OTHER_TOKEN, transport.sessionId!)).toBe(404);

      // The replica that made the pod dies without a word (its pid on the pod is now a dead server's):
      // the other serves everything, and it, started again, serves the same session in the same pod.
      const made = replicas.findIndex((replica) => String(replica.child.pid) === pod!.metadata!.labels![LABELS.pid]);
      expect(made).toBeGreaterThanOrEqual(0);
      const other = replicas[1 - made]!;
      replicas[made]!.child.kill('SIGKILL');
      await replicas[made]!.exited;
      expect(await step(7)).toBe(same);
      const restarted = (replicas[made] = await start(ports[made]!));
      for (let n = 8; n <= 11; n++) expect(await step(n)).toBe(same);
      expect(restarted.stderr()).toMatch(/served here from now on \(opened on another replica\)/);

      // The other is stopped as a rolling update stops it: a replica lives, so the pod stays for it.
      other.child.kill('SIGTERM');
      expect(await other.exited).toBe(0);
      expect(other.stderr()).toMatch(/shared sessions: left to the other replicas/);
      expect(await podNames(sessionId)).toEqual([hostname]);
      for (let n = 12; n <= 14; n++) expect(await step(n)).toBe(same);
      expect(await run('tr "\\n" " " </tmp/steps')).toBe('1 2 3 4 5 6 7 8 9 10 11 12 13 14 ');
      expect(await sessionLeases(sessionId)).toHaveLength(1);

      // The client ends the session: its Lease goes before the answer, its pod with it (a delete with no grace).
      await transport.terminateSession();
      await client.close();
      client = undefined;
      expect(await sessionLeases(sessionId)).toEqual([]);
      await pollUntilAsync(async () => (await podNames(sessionId!)).length === 0, 'the session has no pod', 30_000);
    } finally {
      await client?.close().catch(() => undefined);
      await proxy?.stop();
      await stopReplicas(replicas);
      await removeLeftovers(sessionId);
    }
  }, 240_000);

  it("the last replica's SIGTERM ends its session: the pod and the Lease go", async () => {
    const port = await freePort();
    const replica = await start(port);
    let sessionId: string | undefined;
    try {
      // Straight to the replica: the Host it allows is the proxy's.
      const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}`, host: UPSTREAM_HOST } },
      });
      const client = new Client({ name: 'shared-sessions-k8s-e2e', version: '1.0.0' });
      await client.connect(transport);
      sessionId = textOf(await callTool(client, 'bash', { command: 'echo $DSH_SESSION_ID', description: 'Open the pod' }));
      expect(await podNames(sessionId)).toHaveLength(1);
      expect(await sessionLeases(sessionId)).toHaveLength(1);
      await client.close();
      replica.child.kill('SIGTERM');
      expect(await replica.exited).toBe(0);
      expect(replica.stderr()).toContain(`shared session ${sessionId} ended (the last replica stopped)`);
      expect(await sessionLeases(sessionId)).toEqual([]);
      await pollUntilAsync(async () => (await podNames(sessionId!)).length === 0, 'the session has no pod', 30_000);
    } finally {
      await stopReplicas([replica]);
      await removeLeftovers(sessionId);
    }
  }, 120_000);
});
