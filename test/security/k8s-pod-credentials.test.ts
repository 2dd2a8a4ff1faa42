// Attack: a command in a session pod looks for a way to drive the cluster itself: a mounted service-account
// token, the server's kubeconfig (by its variable or its path), a token in the environment. None is there.
import { rmSync } from 'node:fs';
import { createHost, kubernetesEnvironment } from '../../src/index.js';
import { KIT_IMAGE, NEEDS_CLUSTER, describeWithCluster } from '../support/kubernetes-cluster.js';
import { text, workspace } from '../support/kube-kit.js';

describeWithCluster(`kubernetes: a session pod holds no cluster credentials${NEEDS_CLUSTER}`, () => {
  it('finds no account token, no kubeconfig and no token variable', async () => {
    const root = workspace('creds');
    const kubeconfig = process.env.KUBECONFIG!;
    // The server has a kubeconfig: the precondition of the attack.
    expect(kubeconfig).toBeTruthy();
    const host = await createHost(...kubernetesEnvironment({ workspace: root, executor: { allowEnv: ['HOME'] }, kubernetes: { image: KIT_IMAGE } }));
    try {
      const found = text(
        await host.call('bash', {
          command: [
            'ls /var/run/secrets/kubernetes.io/serviceaccount 2>&1 | head -1',
            'find / -xdev \\( -name token -o -name "*.kubeconfig" \\) -path "*serviceaccount*" 2>/dev/null | head -3; echo found-end',
            `cat '${kubeconfig}' 2>&1 | head -1`,
            'env | grep -ciE "^(KUBECONFIG|[A-Z_]*TOKEN)=" || true',
          ].join('; '),
          description: 'Look for credentials',
        }),
      );
      expect(found).toBe(
        [
          "ls: cannot access '/var/run/secrets/kubernetes.io/serviceaccount': No such file or directory",
          'found-end',
          `cat: ${kubeconfig}: No such file or directory`,
          '0',
        ].join('\n'),
      );
    } finally {
      await host.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
