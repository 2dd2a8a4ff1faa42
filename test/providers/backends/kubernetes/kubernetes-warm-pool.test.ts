// Issue 32 item 1 on a real cluster: `kubernetes.warmPool` starts pods before any session; a new session's
// first call runs in one of them, the pool refills, and disposal deletes every pod of the host.
import { rmSync } from 'node:fs';
import { createHost, kubernetesEnvironment, LABELS, type DshHost } from '../../../../src/index.js';
import { SessionContainersToken } from '../../../../src/providers/exec/engine/session-containers.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../../../support/kubernetes-cluster.js';
import { core, text, workspace } from '../../../support/kube-kit.js';
import { waitUntil } from '../../../support/process-table.js';

/** Names of this process's live pods. */
async function ours(): Promise<string[]> {
  const list = await core.listNamespacedPod({ namespace: 'default', labelSelector: `${LABELS.managed}=1,${LABELS.pid}=${process.pid}` });
  return list.items.filter((pod) => pod.metadata?.deletionTimestamp === undefined).map((pod) => pod.metadata!.name!);
}

describeWithCluster(`kubernetes warm pool${NEEDS_CLUSTER}`, () => {
  let host: DshHost | undefined;
  let root: string;
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  it('a new session takes a pod started before it; the pool refills; disposal deletes them all', async () => {
    root = workspace('pool');
    host = await createHost(...kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, warmPool: 1 } }));
    const pods = host.get(SessionContainersToken);
    await waitUntil(() => pods.pooled === 1, 'a pod is ready before any session', 90_000);
    const [ready] = await ours();
    const session = host.openSession({ cwd: root });
    // A pod's hostname is its name.
    expect(text(await session.call('bash', { command: 'cat /etc/hostname; pwd', description: 'Where am I' }))).toBe(`${ready}\n${root}`);
    await waitUntil(() => pods.pooled === 1, 'the pool refilled', 90_000);
    expect(await ours()).toHaveLength(2);
    await host.dispose();
    host = undefined;
    expect(await ours()).toEqual([]);
  }, 180_000);
});
