import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { V1NetworkPolicy, V1NetworkPolicyEgressRule, V1NetworkPolicyPeer } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { LABELS } from '../../exec/engine/container-engine.js';
import type { EgressRules } from './network-policy-config.js';

/** The pod label naming the egress policy a pod is under (the policy's content hash). */
export const EGRESS_LABEL = 'dsh-tools.egress';

/** The egress policy for `rules`, and the label value its pods carry. */
interface EgressPolicy {
  readonly policy: V1NetworkPolicy;
  readonly labelValue: string;
}

/**
 * Session pods reach DNS and the world outside the cluster, and nothing of
 * the cluster itself: every address in `clusterCidrs` (pods, services, nodes,
 * the metadata address) and the API server's own addresses (`apiServer`,
 * single IPs: a managed cluster's API server often has a public one) are
 * left out of the allowed blocks; `allowCidrs` opens chosen ones again,
 * still without the API server. Undefined for `open` (no egress rules).
 *
 * NetworkPolicies add up: a pod selected by two egress policies gets what
 * either allows. So each distinct rule set is a policy of its own, named and
 * selected by its content hash (`EGRESS_LABEL` on the pod): two servers with
 * different rules in one namespace never widen each other's pods.
 */
export function egressPolicy(rules: EgressRules, apiServer: readonly string[]): EgressPolicy | undefined {
  if (rules.mode === 'open') return undefined;
  const servers = apiServer.filter((ip) => isIP(ip) !== 0).map(hostCidr);
  const egress: V1NetworkPolicyEgressRule[] = [];
  if (rules.dns !== false) {
    const { namespace, podLabels } = rules.dns;
    egress.push({
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } }, podSelector: { matchLabels: { ...podLabels } } }],
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ],
    });
  }
  const outside: V1NetworkPolicyPeer[] = [];
  for (const world of ['0.0.0.0/0', '::/0']) {
    const cluster = rules.clusterCidrs.filter((cidr) => within(cidr, world));
    // A family whose whole range is the cluster's has no outside.
    if (cluster.some((cidr) => prefixOf(cidr) === 0)) continue;
    const loose = servers.filter((server) => within(server, world) && !cluster.some((cidr) => within(server, cidr)));
    const except = [...cluster, ...loose];
    outside.push({ ipBlock: { cidr: world, ...(except.length > 0 ? { except } : {}) } });
  }
  if (outside.length > 0) egress.push({ to: outside });
  const opened: V1NetworkPolicyPeer[] = [];
  for (const cidr of rules.allowCidrs) {
    const except = servers.filter((s) => within(s, cidr));
    if (except.some((s) => prefixOf(s) === prefixOf(cidr))) continue; // the API server itself: never opened
    opened.push({ ipBlock: { cidr, ...(except.length > 0 ? { except } : {}) } });
  }
  if (opened.length > 0) egress.push({ to: opened });
  const labelValue = createHash('sha256').update(JSON.stringify(egress)).digest('hex').slice(0, 16);
  const policy: V1NetworkPolicy = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: `dsh-tools-session-egress-${labelValue}`, labels: { [LABELS.managed]: '1' } },
    spec: { podSelector: { matchLabels: { [LABELS.managed]: '1', [EGRESS_LABEL]: labelValue } }, policyTypes: ['Egress'], egress },
  };
  return { policy, labelValue };
}

function hostCidr(ip: string): string {
  return isIP(ip) === 4 ? `${ip}/32` : `${ip}/128`;
}

function prefixOf(cidr: string): number {
  return Number(cidr.slice(cidr.lastIndexOf('/') + 1));
}

/** The address as a number of 32 or 128 bits. */
function addressBits(ip: string): { family: 4 | 6; value: bigint } | undefined {
  const family = isIP(ip);
  if (family === 4) return { family, value: ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n) };
  if (family !== 6) return undefined;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  const text = v4 === null ? ip : ip.replace(v4[1]!, ((n) => `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`)(addressBits(v4[1]!)!.value));
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return { family, value: groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n) };
}

/** True when every address of `inner` is in `outer` (same family). */
export function within(inner: string, outer: string): boolean {
  const a = addressBits(inner.slice(0, inner.lastIndexOf('/')));
  const b = addressBits(outer.slice(0, outer.lastIndexOf('/')));
  if (a === undefined || b === undefined || a.family !== b.family) return false;
  const width = a.family === 4 ? 32 : 128;
  const innerPrefix = prefixOf(inner);
  const outerPrefix = prefixOf(outer);
  if (innerPrefix < outerPrefix) return false;
  const shift = BigInt(width - outerPrefix);
  return a.value >> shift === b.value >> shift;
}
