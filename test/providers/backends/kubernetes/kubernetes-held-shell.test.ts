// The persistent shell in a pod is a held terminal (script in the pod, its bytes through FIFOs on this node):
// it answers, with its state, while the API server is away — a TTY exec's stream would have gone with it.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHost, kubernetesEnvironment, type DshHost } from '../../../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../../../support/kubernetes-cluster.js';
import { kube, text, workspace } from '../../../support/kube-kit.js';
import { outageProxy } from '../../../support/outage-proxy.js';

describeWithCluster(`kubernetes: the persistent shell through an API outage${NEEDS_CLUSTER}`, () => {
  let host: DshHost | undefined;
  let root: string;
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps its cwd, exports and functions, and answers, while every connection to the API server is dropped', async () => {
    root = workspace('held-outage');
    const server = new URL(kube.getCurrentCluster()!.server);
    const proxy = await outageProxy(server);
    try {
      const kubeconfig = path.join(root, 'kubeconfig');
      writeFileSync(kubeconfig, readFileSync(process.env.KUBECONFIG!, 'utf8').split(server.origin).join(`https://127.0.0.1:${proxy.port}`), { mode: 0o600 });
      host = await createHost(...kubernetesEnvironment({ workspace: root, shell: 'persistent', kubernetes: { image: KIT_IMAGE, kubeconfig } }));
      const session = host.openSession({ cwd: root });
      expect(text(await session.call('bash', { command: 'cd /tmp && export KEPT=yes && f() { echo fn; }' }))).toBe('(no output)');
      expect(text(await session.call('bash', { command: 'ps -eo args' }))).toContain('script -qfec');
      proxy.down();
      // Answered while the proxy is still down.
      expect(text(await session.call('bash', { command: 'pwd; echo $KEPT; f' }))).toBe('/tmp\nyes\nfn');
      proxy.up();
      expect(session.takeNotices()).toEqual([]);
    } finally {
      // Disposed while the proxy still answers: the session's pod and lease go through it.
      proxy.up();
      await host?.dispose();
      host = undefined;
      proxy.close();
    }
  });
});
