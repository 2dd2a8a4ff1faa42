// Failures a user meets on a cluster: each one a model-visible Error that says what is wrong, never a hang.
import { rmSync } from 'node:fs';
import { createHost, kubernetesEnvironment, type PluginModule } from '../../../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../../../support/kubernetes-cluster.js';
import { core, scratchNamespace, sessionPods, text, weakAccount, workspace, writeKubeconfig } from '../../../support/kube-kit.js';
import { pollUntilAsync } from '../../../support/poll-async.js';

/** The first call's text on a fresh host of `modules`. */
async function firstCall(modules: PluginModule[]): Promise<string> {
  const host = await createHost(...modules);
  try {
    return text(await host.call('bash', { command: 'echo ran', description: 'Try' }));
  } finally {
    await host.dispose();
  }
}

describe('kubernetes failures without a cluster', () => {
  it('an unreachable API server is an Error naming it', async () => {
    const root = workspace('unreachable');
    try {
      const kubeconfig = writeKubeconfig(root, 'https://127.0.0.1:1', 'nothing');
      // runtime-default: with `auto`, a machine without a kubelet refuses before the API server is asked.
      expect(await firstCall(kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, kubeconfig, seccompProfile: 'runtime-default' } }))).toBe(
        "Error: cannot start the session's container: Kubernetes API server unreachable at https://127.0.0.1:1 (ECONNREFUSED)",
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a kubeconfig that does not exist, or a context it lacks, is an Error that says so', async () => {
    const root = workspace('noconfig');
    try {
      expect(await firstCall(kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, kubeconfig: '/nonexistent/kubeconfig' } }))).toBe(
        "Error: cannot start the session's container: kubeconfig /nonexistent/kubeconfig does not exist (kubernetes.kubeconfig)",
      );
      const kubeconfig = writeKubeconfig(root, 'https://127.0.0.1:1', 'nothing');
      expect(await firstCall(kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, kubeconfig, context: 'prod' } }))).toBe(
        `Error: cannot start the session's container: kubeconfig has no context "prod" (it has: x)`,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a bad kubernetes section fails at composition with the key and the reason', () => {
    expect(() => kubernetesEnvironment({ kubernetes: {} as never })).toThrow('invalid kubernetes config: image is required');
    expect(() => kubernetesEnvironment({ kubernetes: { image: KIT_IMAGE, podStartTimeoutMs: -1 } })).toThrow(
      'invalid kubernetes config: podStartTimeoutMs must be a positive integer, got -1',
    );
  });
});

describeWithCluster(`kubernetes failures on the cluster${NEEDS_CLUSTER}`, () => {
  let root: string;
  beforeAll(() => (root = workspace('fail')));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('an image that cannot be pulled says so at once, not at the start timeout', async () => {
    const started = Date.now();
    const said = await firstCall(kubernetesEnvironment({ workspace: root, kubernetes: { image: 'k8s.local/no-such-image:1', podStartTimeoutMs: 120_000 } }));
    expect(said).toMatch(/^Error: cannot start the session's container: the session's pod \S+ did not start: the image "k8s\.local\/no-such-image:1" cannot be pulled \((ErrImagePull|ImagePullBackOff)/);
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it("a pod the scheduler cannot place gives the scheduler's reason at the start timeout, and is deleted", async () => {
    const said = await firstCall(
      kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, nodeSelector: { 'example.com/nowhere': 'true' }, podStartTimeoutMs: 3000 } }),
    );
    expect(said).toMatch(
      /^Error: cannot start the session's container: the session's pod \S+ did not start: still pending after 3000 ms \(kubernetes\.podStartTimeoutMs\): not scheduled: Unschedulable: 0\/1 nodes are available: 1 node\(s\) didn't match (node selector|Pod's node affinity)/,
    );
    // Other suites' anonymous sessions share the label: this server's pod is the one with the impossible selector.
    const stuck = (await sessionPods('')).filter((pod) => pod.spec?.nodeSelector?.['example.com/nowhere'] !== undefined);
    expect(stuck).toHaveLength(0);
  });

  it("a namespace quota that refuses the pod is named with the API server's words", async () => {
    const ns = await scratchNamespace('k8s-quota');
    try {
      await core.createNamespacedResourceQuota({ namespace: ns.name, body: { metadata: { name: 'no-pods' }, spec: { hard: { pods: '0' } } } });
      // The quota binds once the controller has filled in its status (a CI run's pod was admitted before that).
      await pollUntilAsync(
        async () => (await core.readNamespacedResourceQuota({ name: 'no-pods', namespace: ns.name })).status?.hard?.pods !== undefined,
        "the quota controller filled in the quota's status",
        30_000,
      );
      const said = await firstCall(kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, namespace: ns.name } }));
      expect(said).toMatch(/^Error: cannot start the session's container: the namespace's ResourceQuota refuses the pod: pods "\S+" is forbidden: exceeded quota: no-pods/);
    } finally {
      await ns.remove();
    }
  });

  it('RBAC that forbids creating pods names the verb and the resource', async () => {
    const ns = await scratchNamespace('k8s-rbac');
    try {
      const kubeconfig = await weakAccount(ns.name, root);
      const said = await firstCall(kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, namespace: ns.name, kubeconfig } }));
      expect(said).toBe(
        `Error: cannot start the session's container: forbidden by RBAC (create pods): pods is forbidden: User "system:serviceaccount:${ns.name}:k8s-weak" cannot create resource "pods" in API group "" in the namespace "${ns.name}"`,
      );
    } finally {
      await ns.remove();
    }
  });

  it('RBAC that forbids exec in pods says so on the call, and the pod still goes with the session', async () => {
    const ns = await scratchNamespace('k8s-rbac-exec');
    try {
      const kubeconfig = await weakAccount(ns.name, root, ['create', 'get', 'list', 'watch', 'delete']);
      const said = await firstCall(kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, namespace: ns.name, kubeconfig } }));
      expect(said).toBe(
        `Error: cannot run the command in the session container: forbidden by RBAC (get/create pods/exec): the account may not exec in pods of namespace ${ns.name}`,
      );
      expect(await sessionPods('', ns.name)).toHaveLength(0);
    } finally {
      await ns.remove();
    }
  });
});
