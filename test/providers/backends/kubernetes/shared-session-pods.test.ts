// Shared sessions' pods (docs/shared-sessions.md#sandboxes) on the kit's cluster: no owner (the server's
// lease does not take them along), the directory whole in the annotations, adopted by a second replica,
// kept when the replica that made it goes away with its lease, and deleted by `end` from another.
import { existsSync, rmSync } from 'node:fs';
import { createHost, kubernetesEnvironment, LABELS, type DshHost, type HostSession } from '../../../../src/index.js';
import { SessionContainersToken } from '../../../../src/providers/exec/engine/session-containers.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../../../support/kubernetes-cluster.js';
import { sessionPods, text, workspace } from '../../../support/kube-kit.js';

describeWithCluster(`shared sessions' pods${NEEDS_CLUSTER}`, () => {
  let root: string;
  const replica = () => createHost(...kubernetesEnvironment({ workspace: root, sharedSessions: true, kubernetes: { image: KIT_IMAGE } }));
  const run = async (session: HostSession, command: string) => text(await session.call('bash', { command, description: 'Run it' }));
  beforeAll(() => {
    root = workspace('shared');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a pod outlives the replica that made it and its lease, serves the other, and goes with end', async () => {
    const id = `k8s-shared-${Date.now().toString(36)}`;
    const first: DshHost = await replica();
    const second: DshHost = await replica();
    const onFirst = first.openSession({ id, cwd: root });
    const onSecond = second.openSession({ id, cwd: root });
    try {
      expect(await run(onFirst, 'echo x > /tmp/mark; echo made')).toBe('made');
      const [pod, ...others] = await sessionPods(id);
      expect(others).toEqual([]);
      expect(pod!.metadata!.ownerReferences ?? []).toEqual([]);
      expect(pod!.metadata!.labels![LABELS.shared]).toBe('1');
      const dir = pod!.metadata!.annotations![LABELS.dir]!;
      expect(existsSync(dir)).toBe(true);
      expect(await run(onSecond, 'cat /tmp/mark')).toBe('x');
      expect((await sessionPods(id)).map((found) => found.metadata!.name)).toEqual([pod!.metadata!.name]);

      // The first replica goes away, lease and all: the pod is no dependent of it.
      await first.dispose();
      expect(await run(onSecond, 'cat /tmp/mark')).toBe('x');
      expect((await sessionPods(id)).map((found) => found.metadata!.name)).toEqual([pod!.metadata!.name]);

      await second.get(SessionContainersToken).end(id);
      expect(await sessionPods(id)).toEqual([]);
      expect(existsSync(dir)).toBe(false);
    } finally {
      await first.dispose();
      await second.get(SessionContainersToken).end(id);
      await second.dispose();
    }
  }, 180_000);

  it('a background task in the pod outlives the replica that started it and is read whole on the other', async () => {
    const id = `k8s-task-${Date.now().toString(36)}`;
    const first: DshHost = await replica();
    const second: DshHost = await replica();
    const onFirst = first.openSession({ id, cwd: root });
    const onSecond = second.openSession({ id, cwd: root });
    try {
      const started = await onFirst.call('bash', { command: 'for i in 1 2 3 4 5; do echo line $i; sleep 0.3; done; exit 2', description: 'Count', run_in_background: true });
      expect(text(started)).toBe('started background task bash-1');
      await first.dispose();
      const read = await onSecond.call('task_output', { task_id: 'bash-1', wait: true, timeout_ms: 60_000 });
      expect(text(read)).toBe('line 1\nline 2\nline 3\nline 4\nline 5\n[status: failed, exit code: 2]');
    } finally {
      await first.dispose();
      await second.get(SessionContainersToken).end(id);
      await second.dispose();
    }
  }, 180_000);
});
