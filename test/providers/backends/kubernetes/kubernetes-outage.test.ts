// Issue 31 item 5: a brief API outage is not a new session. With the API server behind a proxy that
// drops every connection for a while, a call made during the outage waits it out and runs in the same
// pod (its /tmp and hostname intact, no restart notice).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHost, kubernetesEnvironment, type DshHost } from '../../../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../../../support/kubernetes-cluster.js';
import { kube, text, workspace } from '../../../support/kube-kit.js';
import { waitUntil } from '../../../support/process-table.js';
import { SessionContainersToken } from '../../../../src/providers/exec/engine/session-containers.js';
import { outageProxy } from '../../../support/outage-proxy.js';

describeWithCluster(`kubernetes: a brief API outage${NEEDS_CLUSTER}`, () => {
  let host: DshHost | undefined;
  let root: string;
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  /** A host whose API server is reached through the proxy; the session's first call left state in its pod. */
  async function throughProxy(proxy: { port: number }, server: URL, channel: boolean) {
    const kubeconfig = path.join(root, 'kubeconfig');
    writeFileSync(kubeconfig, readFileSync(process.env.KUBECONFIG!, 'utf8').split(server.origin).join(`https://127.0.0.1:${proxy.port}`), { mode: 0o600 });
    host = await createHost(...kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE, kubeconfig, channel } }));
    const session = host.openSession({ cwd: root });
    const before = text(await session.call('bash', { command: 'echo kept > /tmp/state; hostname', description: 'Leave state' }));
    return { session, before };
  }

  it('a call made during the outage waits for the API server and runs in the same pod (engine exec per call)', async () => {
    root = workspace('outage');
    const server = new URL(kube.getCurrentCluster()!.server);
    const proxy = await outageProxy(server);
    try {
      const { session, before } = await throughProxy(proxy, server, false);
      proxy.down();
      const during = session.call('bash', { command: 'cat /tmp/state; hostname', description: 'Read state' });
      // The engine keeps trying through the outage: wait for its attempts, then bring the API server back.
      await waitUntil(() => proxy.refusedWhileDown() >= 3, 'the engine retried during the outage');
      proxy.up();
      expect(text(await during)).toBe(`kept\n${before}`);
      expect(session.takeNotices()).toEqual([]);
    } finally {
      // Disposed while the proxy still answers: the session's pod and lease go through it.
      proxy.up();
      await host?.dispose();
      host = undefined;
      proxy.close();
    }
  });

  it('through the session channel, calls start and end in the same pod while the API server is away', async () => {
    root = workspace('outage-channel');
    const server = new URL(kube.getCurrentCluster()!.server);
    const proxy = await outageProxy(server);
    try {
      const { session, before } = await throughProxy(proxy, server, true);
      expect(await host!.get(SessionContainersToken).channelReady(session)).toBe(true);
      proxy.down();
      // Answered while the proxy is still down: the holder and the call's FIFOs are all on this machine.
      const during = await session.call('bash', { command: 'cat /tmp/state; hostname', description: 'Read state' });
      expect(text(during)).toBe(`kept\n${before}`);
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
