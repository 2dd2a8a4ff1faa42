// The persistent shell of a shared session in Kubernetes mode
// (docs/shared-sessions.md#the-persistent-shell): two `serve --http --kubernetes
// --shared-sessions --shell persistent` replicas over one namespace, behind
// round-robin nginx, drive one shell in the session's pod; its cwd, an export
// and a function outlive the SIGKILL of the replica that started it, and the
// client's close removes the pod and its Lease.
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
import { persistentOn, shellDriver } from './support/shared-shell-calls.js';
import { freePort, replicaDirs, startReplica, stopReplicas, type Replica, type ReplicaDirs } from './support/shared-replicas.js';
import { pollUntilAsync } from '../support/poll-async.js';

const TOKEN = 'shared-shell-k8s-token-0123456789';
const SESSION_LEASES = `${LABELS.managed}=1,dsh-tools.shared-session=1`;

const describeWithNginx = describeBehindNginx(describeWithCluster);

describeWithNginx(`shared sessions: one persistent shell in the pod for every replica${NEEDS_CLUSTER}${NEEDS_NGINX}`, () => {
  let dirs: ReplicaDirs;
  let ns: { name: string; remove: () => Promise<void> };
  let config: string;
  beforeAll(async () => {
    ensureBuilt();
    dirs = replicaDirs(`agent:${TOKEN}\n`);
    ns = await scratchNamespace('dsh-shared-shell');
    const own = path.join(dirs.root, ns.name);
    mkdirSync(own);
    const kubeconfig = await accountWith(ns.name, own, 'dsh-tools', documentedRules());
    config = path.join(own, 'dsh.json');
    writeFileSync(config, JSON.stringify({ kubernetes: { kubeconfig, namespace: ns.name, leaseSeconds: 6 } }));
  }, 180_000);
  afterAll(async () => {
    await ns?.remove();
    dirs?.cleanup();
  });

  const start = (port: number): Promise<Replica> =>
    startReplica(
      port,
      ['--workspace', dirs.workspace, '--config', config, '--kubernetes', KIT_IMAGE, '--shared-sessions', '--shell', 'persistent', '--token-file', dirs.tokenFile, '--allowed-host', UPSTREAM_HOST, '--log-level', 'info'],
      dirs.env,
    );

  it('keeps the cwd, an export and a function through the SIGKILL of the replica that started the shell, on both replicas', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const replicas: Record<number, Replica> = { [portA]: await start(portA), [portB]: await start(portB) };
    let proxy: RoundRobinProxy | undefined;
    let client: Client | undefined;
    let sessionId: string | undefined;
    try {
      proxy = await startRoundRobinNginx(await freePort(), [portA, portB]);
      const transport = new StreamableHTTPClientTransport(proxy.url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
      client = new Client({ name: 'shared-shell-k8s-e2e', version: '1.0.0' });
      await client.connect(transport);
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': transport.protocolVersion! };
      // `--shell persistent`: the persistent shell's tool is `bash`.
      const shellOn = (port: number, command: string) => persistentOn(port, headers, command, 'bash');

      sessionId = textOf(await callTool(client, 'bash', { command: 'mkdir -p /tmp/w && cd /tmp/w && export STEP_VAR=kept && greet() { echo "hi $1"; }; echo $DSH_SESSION_ID', description: 'Build state' }));
      const starterPort = shellDriver(dirs.tmp)!.pid === replicas[portA]!.child.pid ? portA : portB;
      const otherPort = starterPort === portA ? portB : portA;
      const state = 'echo "$PWD $STEP_VAR $(greet you)"';
      for (const port of [otherPort, starterPort]) expect(await shellOn(port, state)).toBe('/tmp/w kept hi you');

      replicas[starterPort]!.child.kill('SIGKILL');
      await replicas[starterPort]!.exited;
      expect(await shellOn(otherPort, state)).toBe('/tmp/w kept hi you');
      replicas[starterPort] = await start(starterPort);
      for (const port of [starterPort, otherPort, starterPort]) expect(await shellOn(port, state)).toBe('/tmp/w kept hi you');

      await transport.terminateSession();
      await client.close();
      client = undefined;
      expect(
        (await coordination.listNamespacedLease({ namespace: ns.name, labelSelector: SESSION_LEASES })).items.filter(
          (lease) => lease.metadata?.annotations?.['dsh-tools.session-id'] === sessionId,
        ),
      ).toEqual([]);
      await pollUntilAsync(async () => (await sessionPods(sessionId!, ns.name)).length === 0, 'the session has no pod', 30_000);
    } finally {
      await client?.close().catch(() => undefined);
      await proxy?.stop();
      await stopReplicas(Object.values(replicas));
      if (sessionId !== undefined) {
        await core.deleteCollectionNamespacedPod({ namespace: ns.name, labelSelector: `${LABELS.session}=${sessionId}`, gracePeriodSeconds: 0 }).catch(() => undefined);
      }
      await coordination.deleteCollectionNamespacedLease({ namespace: ns.name, labelSelector: SESSION_LEASES }).catch(() => undefined);
    }
  }, 180_000);
});
