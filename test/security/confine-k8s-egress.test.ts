// Kubernetes egress (issue 23 follow-up): session pods must not reach the API
// server or the cluster's own networks. The objects are checked against
// configs that try to open them; the traffic only on a cluster whose network
// plugin enforces NetworkPolicies (the kit's does not), named by the
// environment (DSH_TEST_NETWORK_POLICIES=enforced).
import { createHost, kubernetesEnvironment } from '../../src/index.js';
import { egressPolicy, within } from '../../src/providers/backends/kubernetes/egress-policy.js';
import { resolveKubernetesConfig } from '../../src/providers/backends/kubernetes/kubernetes-config.js';
import { KIT_IMAGE, NEEDS_CLUSTER, clusterProblem } from '../support/kubernetes-cluster.js';
import { text, workspace } from '../support/kube-kit.js';

const API_SERVER = ['10.96.0.1', '198.51.100.10', '2001:db8::10'];

/** Every CIDR the policy allows a pod to reach, minus its exceptions, as [cidr, except] pairs. */
function allowedBlocks(networkPolicy: unknown): Array<[string, string[]]> {
  const resolved = resolveKubernetesConfig({ image: 'img', networkPolicy }).networkPolicy;
  if (resolved === false) throw new Error('no policy');
  const built = egressPolicy(resolved.egress, API_SERVER);
  return (built?.policy.spec?.egress ?? []).flatMap((rule) => rule.to ?? []).flatMap((peer) => (peer.ipBlock ? [[peer.ipBlock.cidr, peer.ipBlock.except ?? []]] : []));
}

const reaches = (blocks: Array<[string, string[]]>, ip: string): boolean =>
  blocks.some(([cidr, except]) => within(ip, cidr) && !except.some((e) => within(ip, e)));

describe('the egress policy never opens the API server', () => {
  it.each([
    ['the defaults', true],
    ['allowCidrs of the whole world', { egress: { allowCidrs: ['0.0.0.0/0', '::/0'] } }],
    ['no cluster ranges at all', { egress: { clusterCidrs: [] } }],
    ['the API server named as a host allowCidr', { egress: { allowCidrs: ['198.51.100.10/32', '10.96.0.1/32'] } }],
  ])('%s', (_name, networkPolicy) => {
    const blocks = allowedBlocks(networkPolicy);
    for (const ip of API_SERVER) expect([ip, reaches(blocks, `${ip}/${ip.includes(':') ? 128 : 32}`)]).toEqual([ip, false]);
    expect(reaches(blocks, '93.184.216.34/32')).toBe(true);
  });

  it('keeps pod, service and metadata addresses closed by default', () => {
    const blocks = allowedBlocks(true);
    for (const ip of ['10.244.1.7/32', '172.20.0.5/32', '192.168.3.4/32', '100.64.0.10/32', '169.254.169.254/32', 'fd00::1/128']) {
      expect([ip, reaches(blocks, ip)]).toEqual([ip, false]);
    }
  });
});

const enforced = clusterProblem === undefined && process.env.DSH_TEST_NETWORK_POLICIES === 'enforced';
const NEEDS_ENFORCING = enforced
  ? ''
  : ` (skipped: ${clusterProblem === undefined ? 'the cluster is not declared to enforce NetworkPolicies (DSH_TEST_NETWORK_POLICIES=enforced)' : NEEDS_CLUSTER.replace(/^ \(skipped: |\)$/g, '')})`;

(enforced ? describe : describe.skip)(`a session pod on an enforcing cluster${NEEDS_ENFORCING}`, () => {
  it('cannot open a connection to the API server, but resolves names', async () => {
    const root = workspace('egress');
    const host = await createHost(...kubernetesEnvironment({ workspace: root, kubernetes: { image: KIT_IMAGE } }));
    try {
      const session = host.openSession({ id: 'k8s-egress-attack', cwd: root });
      const probe =
        'timeout 5 bash -c "exec 3<>/dev/tcp/kubernetes.default.svc/443" 2>/dev/null && echo api-open || echo api-closed; ' +
        'getent hosts kubernetes.default.svc >/dev/null && echo dns-ok || echo dns-failed';
      expect(text(await session.call('bash', { command: probe, description: 'Try the API server' }))).toBe('api-closed\ndns-ok');
    } finally {
      await host.dispose();
    }
  });
});
