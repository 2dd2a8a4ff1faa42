// The generated egress NetworkPolicy (unit: the kit's cluster does not enforce policies, so the objects are what can be checked).
import { resolveKubernetesConfig } from '../../../../src/providers/backends/kubernetes/kubernetes-config.js';
import { EGRESS_LABEL, egressPolicy, within } from '../../../../src/providers/backends/kubernetes/egress-policy.js';
import { DEFAULT_CLUSTER_CIDRS, type EgressRules } from '../../../../src/providers/backends/kubernetes/network-policy-config.js';

const rulesOf = (networkPolicy: unknown): EgressRules => {
  const resolved = resolveKubernetesConfig({ image: 'img', networkPolicy }).networkPolicy;
  if (resolved === false) throw new Error('no policy');
  return resolved.egress;
};

describe('the session pods egress policy', () => {
  it('by default allows DNS to kube-dns and the world outside the cluster networks and the API server, nothing else', () => {
    const built = egressPolicy(rulesOf(true), ['10.96.0.1', '172.18.0.2', '203.0.113.7', '2001:db8::5'])!;
    const { spec, metadata } = built.policy;
    expect(metadata!.name).toBe(`dsh-tools-session-egress-${built.labelValue}`);
    expect(built.labelValue).toMatch(/^[0-9a-f]{16}$/);
    expect(spec!.podSelector!.matchLabels).toEqual({ 'dsh-tools.managed': '1', [EGRESS_LABEL]: built.labelValue });
    expect(spec!.policyTypes).toEqual(['Egress']);
    expect(spec!.egress).toEqual([
      {
        to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
      {
        to: [
          // 10.96.0.1 and 172.18.0.2 are inside the cluster ranges already; a public API server address is left out by itself.
          { ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '203.0.113.7/32'] } },
          { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10', '2001:db8::5/128'] } },
        ],
      },
    ]);
  });

  it('opens allowCidrs again, never the API server inside them', () => {
    const rules = rulesOf({ egress: { allowCidrs: ['10.20.0.0/16', '172.18.0.2/32'], dns: false } });
    const { policy } = egressPolicy(rules, ['10.20.0.1', '172.18.0.2'])!;
    expect(policy.spec!.egress![0]!.to![0]!.ipBlock!.cidr).toBe('0.0.0.0/0');
    expect(policy.spec!.egress![1]).toEqual({ to: [{ ipBlock: { cidr: '10.20.0.0/16', except: ['10.20.0.1/32'] } }] });
    expect(policy.spec!.egress).toHaveLength(2);
  });

  it('gives each distinct rule set its own name and pod label, so policies of two servers never add up', () => {
    const a = egressPolicy(rulesOf(true), ['10.96.0.1'])!;
    const b = egressPolicy(rulesOf({ egress: { allowCidrs: ['10.1.0.0/16'] } }), ['10.96.0.1'])!;
    const again = egressPolicy(rulesOf(true), ['10.96.0.1'])!;
    expect(a.labelValue).not.toBe(b.labelValue);
    expect(again.policy).toEqual(a.policy);
  });

  it('has no egress policy for mode open, and no outside block for a family the cluster ranges cover whole', () => {
    expect(egressPolicy(rulesOf({ egress: { mode: 'open' } }), [])).toBeUndefined();
    const { policy } = egressPolicy(rulesOf({ egress: { clusterCidrs: ['0.0.0.0/0'], dns: false } }), [])!;
    expect(policy.spec!.egress).toEqual([{ to: [{ ipBlock: { cidr: '::/0' } }] }]);
  });

  it('tells which CIDRs lie inside which', () => {
    expect(within('10.1.2.3/32', '10.0.0.0/8')).toBe(true);
    expect(within('11.0.0.1/32', '10.0.0.0/8')).toBe(false);
    expect(within('10.0.0.0/8', '10.0.0.0/16')).toBe(false);
    expect(within('fd00::1/128', 'fc00::/7')).toBe(true);
    expect(within('::ffff:10.0.0.1/128', '::ffff:0:0/96')).toBe(true);
    expect(within('10.0.0.1/32', 'fc00::/7')).toBe(false);
  });
});

describe('kubernetes.networkPolicy config', () => {
  it('keeps true and false, and fills every default', () => {
    expect(resolveKubernetesConfig({ image: 'img' }).networkPolicy).toEqual({
      egress: { mode: 'restricted', clusterCidrs: DEFAULT_CLUSTER_CIDRS, allowCidrs: [], dns: { namespace: 'kube-system', podLabels: { 'k8s-app': 'kube-dns' } } },
    });
    expect(resolveKubernetesConfig({ image: 'img', networkPolicy: false }).networkPolicy).toBe(false);
    expect(rulesOf({ egress: { dns: { namespace: 'dns', podLabels: { app: 'coredns' } } } }).dns).toEqual({ namespace: 'dns', podLabels: { app: 'coredns' } });
  });

  it.each([
    ['yes', 'networkPolicy must be true, false or { egress: { mode, clusterCidrs, allowCidrs, dns } }, got "yes"'],
    [{ ingress: [] }, 'networkPolicy must be true, false or { egress: { mode, clusterCidrs, allowCidrs, dns } }, got {"ingress":[]}'],
    [{ egress: { mode: 'closed' } }, 'networkPolicy.egress.mode must be restricted or open, got "closed"'],
    [{ egress: { allowCidrs: ['10.0.0.0'] } }, 'networkPolicy.egress.allowCidrs must be a list of CIDRs such as 10.0.0.0/8 or fd00::/8, got "10.0.0.0"'],
    [{ egress: { clusterCidrs: ['10.0.0.0/33'] } }, 'networkPolicy.egress.clusterCidrs must be a list of CIDRs such as 10.0.0.0/8 or fd00::/8, got "10.0.0.0/33"'],
    [{ egress: { clusterCidrs: '10.0.0.0/8' } }, 'networkPolicy.egress.clusterCidrs must be a list of CIDRs such as 10.0.0.0/8, got "10.0.0.0/8"'],
    [{ egress: { dns: { namespace: 'Kube System' } } }, 'networkPolicy.egress.dns.namespace must be a namespace name, got "Kube System"'],
    [{ egress: { dns: { podLabels: {} } } }, 'networkPolicy.egress.dns.podLabels must be a non-empty mapping of label names to strings, got {}'],
    [{ egress: { ports: [80] } }, 'networkPolicy.egress.ports is not a known key (mode, clusterCidrs, allowCidrs, dns)'],
  ])('refuses %j', (networkPolicy, message) => {
    expect(() => resolveKubernetesConfig({ image: 'img', networkPolicy })).toThrow(`invalid kubernetes config: ${message}`);
  });
});
