// The in-cluster deployment of docs/kubernetes.md, applied to the kit's cluster. As written, every object passes
// the API server's server-side dry run. Running, the server is in a pod with its own service account and Role,
// reads its token from the Secret, and serves sessions in pods of their own. Kit-only swaps for that run (the
// rest is the docs' block verbatim): the kit's image with node and this package mounted from this machine
// (no registry), and host networking with the API server address, because the kit's API server listens on
// 127.0.0.1 only — so the port moves to a free one, the probes' with it.
import { copyFileSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LABELS } from '../../src/index.js';
import { DEFAULT_KUBELET_SECCOMP_ROOT } from '../../src/providers/backends/kubernetes/pod-seccomp.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { core, docManifests, kube, scratchNamespace, text, workspace } from '../support/kube-kit.js';
import { ensureBuilt, ROOT } from '../support/built-server.js';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The kit-only swaps described at the top. */
function forTheKit(deployment: k8s.V1Deployment, port: number): void {
  const spec = deployment.spec!.template.spec!;
  const server = spec.containers[0]!;
  const api = new URL(kube.getCurrentCluster()!.server);
  const modules = realpathSync(path.join(ROOT, 'node_modules'));
  spec.hostNetwork = true;
  for (const init of spec.initContainers ?? []) init.image = KIT_IMAGE;
  for (const probe of [server.readinessProbe, server.livenessProbe]) if (probe?.httpGet) probe.httpGet.port = port;
  server.ports = [{ containerPort: port }];
  server.image = KIT_IMAGE;
  server.imagePullPolicy = 'IfNotPresent';
  // The image's entrypoint, `node …/main.js serve`, with this machine's node and package.
  server.command = ['/usr/bin/node', path.join(ROOT, 'dist/cli/main.js'), 'serve'];
  server.args = server.args!.map((arg) => (arg === '8765' ? String(port) : arg === 'registry.example.com/agent-shell:1' ? KIT_IMAGE : arg));
  server.env!.push({ name: 'KUBERNETES_SERVICE_HOST', value: api.hostname }, { name: 'KUBERNETES_SERVICE_PORT', value: api.port });
  const mounts: Array<[string, string]> = [['usr', '/usr'], ['package', ROOT], ['modules', modules]];
  for (const [name, where] of mounts) {
    spec.volumes!.push({ name, hostPath: { path: where } });
    server.volumeMounts!.push({ name, mountPath: where, readOnly: true });
  }
}

describeWithCluster(`the in-cluster deployment of docs/kubernetes.md${NEEDS_CLUSTER}`, () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('every object of the block, as written, passes the API server (server-side dry run)', async () => {
    const ns = await scratchNamespace('k8s-dryrun');
    const apply = k8s.KubernetesObjectApi.makeApiClient(kube);
    try {
      const objects = docManifests('/srv/dsh');
      for (const object of objects) {
        object.metadata = { ...object.metadata, namespace: ns.name };
        await expect(apply.create(object, undefined, 'All')).resolves.toMatchObject({ kind: object.kind });
      }
      const deployment = objects.find((o) => o.kind === 'Deployment') as k8s.V1Deployment;
      const pod = deployment.spec!.template.spec!;
      const server = pod.containers[0]!;
      // What the operator needs of it: the image's entrypoint, a listener the Service reaches, probes, a grace period above the drain.
      expect(server.command).toBeUndefined();
      expect(server.args!.slice(0, 4)).toEqual(['--http', '8765', '--host', '0.0.0.0']);
      expect(server.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(server.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(server.resources?.requests).toBeDefined();
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(30);
      expect(pod.initContainers?.[0]?.command).toEqual(['chown', '1000:1000', '/srv/dsh/workspace', '/srv/dsh/tmp']);
    } finally {
      await ns.remove();
    }
  });

  it('serves bash from a Deployment with the minimal Role; each session runs in a pod of its own', async () => {
    const ns = await scratchNamespace('k8s-deploy');
    const base = workspace('deploy');
    mkdirSync(path.join(base, 'workspace'));
    const token = randomBytes(24).toString('hex');
    const port = await freePort();
    // What the docs ask of every node before the manifests: the session seccomp profile in the kubelet's directory.
    const profile = path.join(DEFAULT_KUBELET_SECCOMP_ROOT, 'dsh-tools', 'session.json');
    mkdirSync(path.dirname(profile), { recursive: true });
    copyFileSync(path.join(ROOT, 'docs/kubernetes/session-seccomp.json'), profile);
    const objects = docManifests(base);
    const apply = k8s.KubernetesObjectApi.makeApiClient(kube);
    try {
      for (const object of objects) {
        object.metadata = { ...object.metadata, namespace: ns.name };
        if (object.kind === 'Secret') (object as k8s.V1Secret).stringData = { token };
        if (object.kind === 'Deployment') forTheKit(object as k8s.V1Deployment, port);
        await apply.create(object);
      }
      expect(objects.map((o) => o.kind)).toEqual(['ServiceAccount', 'Role', 'RoleBinding', 'Secret', 'ConfigMap', 'Deployment', 'Service']);
      const client = await connectWhenUp(port, token, 90_000);
      try {
        const result = await client.callTool({ name: 'bash', arguments: { command: 'pwd; tr -d "\\0" </proc/1/cmdline', description: 'Where am I' } });
        expect(text(result as never)).toBe(`${path.join(base, 'workspace')}\n/pause`);
        const pods = await core.listNamespacedPod({ namespace: ns.name, labelSelector: `${LABELS.managed}=1` });
        expect(pods.items).toHaveLength(1);
        // Its pod runs in the server's namespace, read from the service account mount.
        expect(pods.items[0]!.metadata!.namespace).toBe(ns.name);
      } finally {
        await client.close();
      }
    } finally {
      await ns.remove();
      rmSync(base, { recursive: true, force: true });
    }
  }, 180_000);
});

/** Connects once the server in the pod answers (it starts after the pod is scheduled and node loads). */
async function connectWhenUp(port: number, token: string, ms: number): Promise<Client> {
  const deadline = Date.now() + ms;
  for (;;) {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'k8s-deploy', version: '1' });
    try {
      await client.connect(transport);
      return client;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
