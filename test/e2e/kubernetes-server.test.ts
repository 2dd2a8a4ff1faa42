// `dsh-tools serve` with the kubernetes: section end to end, and what a SIGKILLed server leaves: its pods go
// with its lease, deleted by any server that renews its own (bounded time), or at once by the next to start here,
// or by an idle server's reaper timer (issue 31 item 6); an account that may not look is a start error.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHost, kubernetesEnvironment, LABELS } from '../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { coordination, core, scratchNamespace, weakAccount } from '../support/kube-kit.js';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';
import { isAlive, serverDirs, startStdioServer, textOf, waitUntil } from '../support/mcp-clients.js';

const LEASE_SECONDS = 3;

/** Live pods created by the server process `pid`. */
async function podsOf(pid: number): Promise<string[]> {
  const list = await core.listNamespacedPod({ namespace: 'default', labelSelector: `${LABELS.managed}=1,${LABELS.pid}=${pid}` });
  return list.items.filter((pod) => pod.metadata?.deletionTimestamp === undefined).map((pod) => pod.metadata!.name!);
}

/** Polls the API (a watch would do; polling keeps the test short) until `check` holds; resolves with the time it took. */
async function pollCluster(check: () => Promise<boolean>, what: string, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms}ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

describeWithCluster(`serve with kubernetes over MCP${NEEDS_CLUSTER}`, () => {
  let dirs: ReturnType<typeof serverDirs>;
  let config: string;
  beforeAll(() => {
    ensureBuilt();
    dirs = serverDirs();
    config = path.join(dirs.root, 'dsh.json');
    // The spawned server gets no ambient KUBECONFIG: the file names it.
    writeFileSync(config, JSON.stringify({ kubernetes: { kubeconfig: process.env.KUBECONFIG, leaseSeconds: LEASE_SECONDS } }));
  }, 180_000);
  afterAll(() => dirs?.cleanup());

  const start = (extra: string[] = []) =>
    startStdioServer({ workspace: dirs.workspace, dshHome: dirs.dshHome, args: ['--config', config, '--kubernetes', KIT_IMAGE, ...extra] });

  it('serves bash in a session pod in the workspace and deletes the pod and its lease when the client leaves', async () => {
    const server = await start();
    let lease: string;
    try {
      expect(textOf(await server.call('bash', { command: 'pwd; tr -d "\\0" </proc/1/cmdline', description: 'Where am I' }))).toBe(`${dirs.workspace}\n/pause`);
      expect(await podsOf(server.pid)).toHaveLength(1);
      const leases = await coordination.listNamespacedLease({ namespace: 'default', labelSelector: `${LABELS.pid}=${server.pid}` });
      expect(leases.items).toHaveLength(1);
      lease = leases.items[0]!.metadata!.name!;
    } finally {
      await server.close();
    }
    await waitUntil(() => !isAlive(server.pid), 'the server exits');
    expect(await podsOf(server.pid)).toEqual([]);
    await expect(coordination.readNamespacedLease({ name: lease, namespace: 'default' })).rejects.toMatchObject({ code: 404 });
  }, 60_000);

  it("a SIGKILLed server's pods are deleted once its lease expires, by any server renewing its own", async () => {
    const server = await start(['--shell', 'persistent']);
    await server.call('bash', { command: 'true', description: 'Create the pod' });
    expect(await podsOf(server.pid)).toHaveLength(1);
    process.kill(server.pid, 'SIGKILL');
    await waitUntil(() => !isAlive(server.pid), 'the server is gone');
    // Another server (this process), running with the same lease settings: its renewals reap expired leases.
    const other = await createHost(...kubernetesEnvironment({ workspace: dirs.workspace, kubernetes: { image: KIT_IMAGE, leaseSeconds: LEASE_SECONDS } }));
    try {
      await other.call('bash', { command: 'true', description: 'Hold a lease' });
      const took = await pollCluster(async () => (await podsOf(server.pid)).length === 0, 'the dead server has no pod', 30_000);
      // Expiry (3 s after the last renewal) plus one renewal period of the other server (1 s), plus garbage collection.
      expect(took).toBeLessThan(15_000);
    } finally {
      await other.dispose();
    }
  }, 90_000);

  it("the next server to start on this machine deletes a SIGKILLed server's pods before it serves", async () => {
    const first = await start();
    await first.call('bash', { command: 'true', description: 'Create the pod' });
    expect(await podsOf(first.pid)).toHaveLength(1);
    process.kill(first.pid, 'SIGKILL');
    await waitUntil(() => !isAlive(first.pid), 'the server is gone');
    const next = await start();
    try {
      expect(await podsOf(first.pid)).toEqual([]);
    } finally {
      await next.close();
    }
  }, 60_000);

  it("an idle server's reaper timer deletes a SIGKILLed server's pods, though it never opened a session", async () => {
    // The idle server starts first: its start-up reap sees nothing; only its timer can find the orphan.
    const idle = await start(['--reap-interval', '0.5']);
    try {
      const dead = await start();
      await dead.call('bash', { command: 'true', description: 'Create the pod' });
      expect(await podsOf(dead.pid)).toHaveLength(1);
      process.kill(dead.pid, 'SIGKILL');
      await waitUntil(() => !isAlive(dead.pid), 'the server is gone');
      await pollCluster(async () => (await podsOf(dead.pid)).length === 0, 'the dead server has no pod', 30_000);
      expect(isAlive(idle.pid)).toBe(true);
    } finally {
      await idle.close();
    }
  }, 90_000);

  it('an account that may not list leases fails the start with the verb and resource, before serving', async () => {
    const ns = await scratchNamespace('k8s-reap-rbac');
    try {
      const kubeconfig = await weakAccount(ns.name, dirs.root, ['create', 'get', 'list', 'watch', 'delete'], ['create', 'get', 'patch', 'delete']);
      const weakConfig = path.join(dirs.root, 'weak.json');
      writeFileSync(weakConfig, JSON.stringify({ kubernetes: { kubeconfig, namespace: ns.name } }));
      const run = spawnSync(process.execPath, [MAIN_JS, 'serve', '--workspace', dirs.workspace, '--config', weakConfig, '--kubernetes', KIT_IMAGE, '--http', '0'], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, DSH_HTTP_TOKEN: 'reap-rbac-token-0123456789abcdef' },
      });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toMatch(/cannot look for sessions that dead servers left: forbidden by RBAC \(list leases\): leases\.coordination\.k8s\.io is forbidden: User "system:serviceaccount:k8s-reap-rbac-\w+:k8s-weak" cannot list resource "leases"/);
      expect(run.stderr).not.toMatch(/MCP server listening/);
    } finally {
      await ns.remove();
    }
  }, 90_000);
});
