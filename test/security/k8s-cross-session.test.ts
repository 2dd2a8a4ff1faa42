// Attack: session A looks into session B's pod (processes, files), and a session id crafted as a label
// selector tries to make A's end take B's pod with it. Each session has a pod of its own, removed by name.
import { rmSync } from 'node:fs';
import { createHost, kubernetesEnvironment, ISOLATION_POLICY, LABELS, type DshHost } from '../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { networking, sessionPods, text, workspace } from '../support/kube-kit.js';

describeWithCluster(`kubernetes: one session cannot reach into another's pod${NEEDS_CLUSTER}`, () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = workspace('xs');
    host = await createHost(...kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE } }));
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it("A sees none of B's processes or private files; both pods fall under the isolation policy", async () => {
    const b = host.openSession({ id: 'k8s-xs-b', cwd: root });
    const a = host.openSession({ id: 'k8s-xs-a', cwd: root });
    try {
      await b.call('bash', { command: 'echo b-secret > /tmp/b-only; sleep 300.4242', description: 'Hold', run_in_background: true });
      // Positive control: B itself sees both.
      expect(text(await b.call('bash', { command: 'for i in $(seq 50); do [ -e /tmp/b-only ] && break; sleep 0.1; done; cat /tmp/b-only; pgrep -xc sleep', description: 'Look' }))).toBe('b-secret\n1');
      const seen = text(await a.call('bash', { command: 'pgrep -xc sleep; cat /tmp/b-only', description: 'Peek' }));
      expect(seen).toBe('0\n[stderr]\ncat: /tmp/b-only: No such file or directory\n[exit code: 1]');
      const pods = [...(await sessionPods('k8s-xs-a')), ...(await sessionPods('k8s-xs-b'))];
      expect(new Set(pods.map((pod) => pod.metadata!.name)).size).toBe(2);
      const policy = await networking.readNamespacedNetworkPolicy({ name: ISOLATION_POLICY, namespace: 'default' });
      for (const pod of pods) expect(pod.metadata!.labels![LABELS.managed]).toBe(policy.spec!.podSelector!.matchLabels![LABELS.managed]);
    } finally {
      await a.dispose();
      await b.dispose();
    }
  }, 90_000);

  it("a session id written as a label selector neither joins nor removes another session's pod", async () => {
    const victim = host.openSession({ id: 'k8s-victim', cwd: root });
    const attacker = host.openSession({ id: `x,${LABELS.session}=k8s-victim`, cwd: root });
    try {
      await victim.call('bash', { command: 'export MINE=1', description: 'Create the pod' });
      await attacker.call('bash', { command: 'true', description: 'Create the pod' });
      const [before] = await sessionPods('k8s-victim');
      expect(before).toBeDefined();
      await attacker.dispose();
      const [after] = await sessionPods('k8s-victim');
      expect(after?.metadata?.name).toBe(before!.metadata!.name);
      expect(text(await victim.call('bash', { command: 'echo still', description: 'Same pod' }))).toBe('still');
      expect(victim.takeNotices()).toEqual([]);
    } finally {
      await attacker.dispose();
      await victim.dispose();
    }
  }, 90_000);
});
