// A pod per session on a real cluster: created on the first call, labelled, hardened, deleted with the session.
import { rmSync } from 'node:fs';
import { createHost, kubernetesEnvironment, ISOLATION_POLICY, LABELS, type DshHost } from '../../../../src/index.js';
import { EGRESS_LABEL } from '../../../../src/providers/backends/kubernetes/egress-policy.js';
import { sessionProfileName } from '../../../../src/providers/backends/kubernetes/pod-seccomp.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../../../support/kubernetes-cluster.js';
import { core, networking, podExec, sessionPods, text, workspace } from '../../../support/kube-kit.js';

describeWithCluster(`session pods on the cluster${NEEDS_CLUSTER}`, () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = workspace('pods');
    host = await createHost(...kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, labels: { team: 'tests' }, annotations: { 'example.com/note': 'k8s test' } } }));
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('creates no pod before the first call, one on it, and deletes it when the session ends', async () => {
    const session = host.openSession({ id: 'k8s-lifecycle', cwd: root });
    expect(await sessionPods('k8s-lifecycle')).toHaveLength(0);
    expect(text(await session.call('bash', { command: 'echo "$PWD"; echo hi > made-in-pod', description: 'First call' }))).toBe(`${root}`);
    expect(text(await session.call('bash', { command: 'cat made-in-pod', description: 'Second call' }))).toBe('hi');
    const pods = await sessionPods('k8s-lifecycle');
    expect(pods).toHaveLength(1);
    const labels = pods[0]!.metadata!.labels!;
    expect(labels[LABELS.managed]).toBe('1');
    expect(labels[LABELS.session]).toBe('k8s-lifecycle');
    expect(labels[LABELS.pid]).toBe(String(process.pid));
    expect(labels.team).toBe('tests');
    expect(pods[0]!.metadata!.annotations!['example.com/note']).toBe('k8s test');
    expect(pods[0]!.metadata!.ownerReferences?.[0]?.kind).toBe('Lease');
    await session.dispose();
    expect(await sessionPods('k8s-lifecycle')).toHaveLength(0);
  });

  it('hardens the pod like a session container: capabilities dropped, no privilege escalation, the session seccomp profile, limits, no token', async () => {
    const session = host.openSession({ id: 'k8s-hardened', cwd: root });
    try {
      await session.call('bash', { command: 'true', description: 'Create the pod' });
      const [pod] = await sessionPods('k8s-hardened');
      const container = pod!.spec!.containers[0]!;
      expect(container.securityContext?.capabilities?.drop).toEqual(['ALL']);
      expect(container.securityContext?.capabilities?.add).toEqual(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID', 'KILL']);
      expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
      expect(container.securityContext?.privileged).toBe(false);
      // The kit's kubelet runs on this machine: `auto` installed the session profile (refuses set-id modes).
      expect(container.securityContext?.seccompProfile).toEqual({ type: 'Localhost', localhostProfile: sessionProfileName() });
      expect(pod!.spec!.securityContext?.seccompProfile).toEqual({ type: 'Localhost', localhostProfile: sessionProfileName() });
      expect(container.resources?.limits?.memory).toBe('4Gi');
      expect(pod!.spec!.automountServiceAccountToken).toBe(false);
      expect(pod!.spec!.enableServiceLinks).toBe(false);
      // Inside: no account token, and the capability set the kernel reports is the named one.
      const inside = text(
        await session.call('bash', {
          command: 'ls /var/run/secrets/kubernetes.io 2>&1 | head -1; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status | tr -s "\\t " " "',
          description: 'Look around',
        }),
      );
      expect(inside).toMatch(/No such file or directory/);
      expect(inside).toMatch(/CapEff: 00000000000000eb\nNoNewPrivs: 1\nSeccomp: 2$/);
    } finally {
      await session.dispose();
    }
  });

  it('keeps one NetworkPolicy that isolates session pods from each other', async () => {
    const policy = await networking.readNamespacedNetworkPolicy({ name: ISOLATION_POLICY, namespace: 'default' });
    expect(policy.spec?.podSelector?.matchLabels).toEqual({ [LABELS.managed]: '1' });
    expect(policy.spec?.policyTypes).toEqual(['Ingress']);
    expect(policy.spec?.ingress ?? []).toEqual([]);
  });

  it('creates the egress policy (DNS and outside the cluster only) that its pods are labelled for', async () => {
    const session = host.openSession({ id: 'k8s-egress', cwd: root });
    try {
      await session.call('bash', { command: 'true', description: 'Create the pod' });
      const [pod] = await sessionPods('k8s-egress');
      const label = pod!.metadata!.labels![EGRESS_LABEL];
      expect(label).toMatch(/^[0-9a-f]{16}$/);
      const policy = await networking.readNamespacedNetworkPolicy({ name: `dsh-tools-session-egress-${label}`, namespace: 'default' });
      expect(policy.spec?.podSelector?.matchLabels).toEqual({ [LABELS.managed]: '1', [EGRESS_LABEL]: label });
      expect(policy.spec?.policyTypes).toEqual(['Egress']);
      const outside = policy.spec!.egress!.flatMap((rule) => rule.to ?? []).find((peer) => peer.ipBlock?.cidr === '0.0.0.0/0');
      expect(outside?.ipBlock?.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']));
    } finally {
      await session.dispose();
    }
  });

  it('a pod whose main process died is replaced on the next call, which says why', async () => {
    const session = host.openSession({ id: 'k8s-died', cwd: root });
    try {
      await session.call('bash', { command: 'export X=1', description: 'Create the pod' });
      const [pod] = await sessionPods('k8s-died');
      await podExec('default', pod!.metadata!.name!, ['sh', '-c', 'kill -9 $(pgrep -f "while read")']);
      for (let i = 0; i < 100 && (await core.readNamespacedPod({ name: pod!.metadata!.name!, namespace: 'default' })).status?.phase === 'Running'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const next = await session.call('bash', { command: 'echo again', description: 'Recover' });
      expect(text(next)).toBe('again');
      expect(session.takeNotices()).toEqual(['[container restarted: the previous one stopped (exited with code 137)]']);
      const pods = await sessionPods('k8s-died');
      expect(pods.map((p) => p.metadata!.name)).not.toContain(pod!.metadata!.name);
    } finally {
      await session.dispose();
    }
  });

  it('a pod deleted from outside mid-command fails that call; the next call gets a new pod and the notice', async () => {
    const session = host.openSession({ id: 'k8s-deleted', cwd: root });
    try {
      await session.call('bash', { command: 'true', description: 'Create the pod' });
      const [pod] = await sessionPods('k8s-deleted');
      let printed!: () => void;
      const started = new Promise<void>((resolve) => (printed = resolve));
      const running = session.call('bash', { command: 'echo before; sleep 60', description: 'Wait' }, { onProgress: () => printed() });
      await started;
      await core.deleteNamespacedPod({ name: pod!.metadata!.name!, namespace: 'default', gracePeriodSeconds: 0 });
      const failed = await running;
      expect(failed.isError).toBe(true);
      expect(text(failed)).toMatch(/^Error: the session container stopped while the command ran \((removed|the pod was deleted)\)$/);
      expect(text(await session.call('bash', { command: 'echo again', description: 'Recover' }))).toBe('again');
      expect(session.takeNotices()).toEqual([expect.stringMatching(/^\[container restarted: the previous one stopped \((removed|the pod was deleted)\)\]$/)]);
    } finally {
      await session.dispose();
    }
  });
});
