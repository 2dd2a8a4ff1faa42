import { isIP } from 'node:net';
import { configError } from '../../../core/config-merge.js';
import { describeValue } from '../../../core/describe-value.js';

/** Where DNS is answered: pods with these labels in that namespace (UDP and TCP 53). */
interface DnsTarget {
  readonly namespace: string;
  readonly podLabels: Readonly<Record<string, string>>;
}

/**
 * What session pods may reach. `restricted`: DNS, and every address outside
 * `clusterCidrs` and the API server's; `open`: anything (only the ingress
 * isolation, as before issue 23's egress rules).
 */
export interface EgressRules {
  readonly mode: 'restricted' | 'open';
  /** The cluster's own networks (pods, services, nodes); never reached but through `allowCidrs`. */
  readonly clusterCidrs: readonly string[];
  /** Destinations allowed although inside `clusterCidrs` (an in-cluster package mirror); never the API server. */
  readonly allowCidrs: readonly string[];
  /** Where DNS queries may go; false: nowhere inside the cluster (an outside resolver is still reachable). */
  readonly dns: DnsTarget | false;
}

/** `kubernetes.networkPolicy` resolved: false creates no NetworkPolicy at all. */
export type NetworkPolicyConfig = { readonly egress: EgressRules } | false;

/**
 * Private, shared, carrier-grade NAT and link-local ranges: where pod,
 * service and node networks live on every common distribution, and the
 * cloud metadata address (169.254.169.254).
 */
export const DEFAULT_CLUSTER_CIDRS: readonly string[] = Object.freeze([
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  'fc00::/7',
  'fe80::/10',
]);

const DEFAULT_DNS: DnsTarget = Object.freeze({ namespace: 'kube-system', podLabels: Object.freeze({ 'k8s-app': 'kube-dns' }) });

const DEFAULT_EGRESS: EgressRules = Object.freeze({ mode: 'restricted', clusterCidrs: DEFAULT_CLUSTER_CIDRS, allowCidrs: Object.freeze([]), dns: DEFAULT_DNS });

const EGRESS_KEYS = new Set(['mode', 'clusterCidrs', 'allowCidrs', 'dns']);
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** `true` (the default rules), `false` (no policy) or `{ egress: { mode, clusterCidrs, allowCidrs, dns } }`. */
export function checkNetworkPolicy(label: string, value: unknown): NetworkPolicyConfig {
  if (value === true) return { egress: DEFAULT_EGRESS };
  if (value === false) return false;
  const shape = 'must be true, false or { egress: { mode, clusterCidrs, allowCidrs, dns } }';
  if (!isMapping(value) || Object.keys(value).some((key) => key !== 'egress')) throw configError(label, 'networkPolicy', `${shape}, got ${describeValue(value)}`);
  const egress = value.egress ?? {};
  if (!isMapping(egress)) throw configError(label, 'networkPolicy.egress', `must be a mapping, got ${describeValue(egress)}`);
  for (const key of Object.keys(egress)) {
    if (!EGRESS_KEYS.has(key)) throw configError(label, `networkPolicy.egress.${key}`, `is not a known key (${[...EGRESS_KEYS].join(', ')})`);
  }
  const mode = egress.mode ?? DEFAULT_EGRESS.mode;
  if (mode !== 'restricted' && mode !== 'open') throw configError(label, 'networkPolicy.egress.mode', `must be restricted or open, got ${describeValue(mode)}`);
  return {
    egress: Object.freeze({
      mode,
      clusterCidrs: cidrList(label, 'clusterCidrs', egress.clusterCidrs ?? DEFAULT_CLUSTER_CIDRS),
      allowCidrs: cidrList(label, 'allowCidrs', egress.allowCidrs ?? []),
      dns: dnsTarget(label, egress.dns ?? DEFAULT_DNS),
    }),
  };
}

function cidrList(label: string, key: string, value: unknown): readonly string[] {
  const path = `networkPolicy.egress.${key}`;
  if (!Array.isArray(value)) throw configError(label, path, `must be a list of CIDRs such as 10.0.0.0/8, got ${describeValue(value)}`);
  for (const entry of value) {
    if (!isCidr(entry)) throw configError(label, path, `must be a list of CIDRs such as 10.0.0.0/8 or fd00::/8, got ${describeValue(entry)}`);
  }
  return Object.freeze([...(value as string[])]);
}

function dnsTarget(label: string, value: unknown): DnsTarget | false {
  if (value === false) return false;
  const path = 'networkPolicy.egress.dns';
  const shape = 'must be false or { namespace, podLabels }';
  if (!isMapping(value) || Object.keys(value).some((key) => key !== 'namespace' && key !== 'podLabels')) {
    throw configError(label, path, `${shape}, got ${describeValue(value)}`);
  }
  const namespace = value.namespace ?? DEFAULT_DNS.namespace;
  if (typeof namespace !== 'string' || !DNS_LABEL.test(namespace)) throw configError(label, `${path}.namespace`, `must be a namespace name, got ${describeValue(namespace)}`);
  const podLabels = value.podLabels ?? DEFAULT_DNS.podLabels;
  if (!isMapping(podLabels) || Object.keys(podLabels).length === 0 || !Object.values(podLabels).every((v) => typeof v === 'string')) {
    throw configError(label, `${path}.podLabels`, `must be a non-empty mapping of label names to strings, got ${describeValue(podLabels)}`);
  }
  return Object.freeze({ namespace, podLabels: Object.freeze({ ...(podLabels as Record<string, string>) }) });
}

/** `a.b.c.d/n` (n ≤ 32) or an IPv6 address with `/n` (n ≤ 128). */
function isCidr(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = /^([^/]+)\/(\d{1,3})$/.exec(value);
  if (match === null) return false;
  const family = isIP(match[1]!);
  const bits = Number(match[2]);
  return (family === 4 && bits <= 32) || (family === 6 && bits <= 128);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
