import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { V1NetworkPolicy } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { LABELS } from '../../exec/engine/container-engine.js';
import { egressPolicy } from './egress-policy.js';
import type { KubeClient } from './kube-client.js';
import { httpStatus } from './kube-errors.js';
import type { EgressRules } from './network-policy-config.js';

import { ISOLATION_POLICY } from './isolation-policy-name.js';

export { ISOLATION_POLICY };

/**
 * Session pods accept no connection at all (an ingress policy with no
 * rule): no session pod reaches another, nor does anything else in the
 * cluster reach one. Effective only where the cluster's network plugin
 * enforces NetworkPolicies. What they may reach is the egress policy's
 * (egress-policy.ts).
 */
function isolationPolicy(): V1NetworkPolicy {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: ISOLATION_POLICY, labels: { [LABELS.managed]: '1' } },
    spec: { podSelector: { matchLabels: { [LABELS.managed]: '1' } }, policyTypes: ['Ingress'], ingress: [] },
  };
}

/**
 * Creates the namespace's isolation policy and, for restricted egress, the
 * egress policy of these rules, unless they exist (the same name is the same
 * content). Returns the egress label value the session pods must carry.
 */
export async function ensureIsolationPolicy(client: KubeClient, egress: EgressRules): Promise<string | undefined> {
  await createUnlessExists(client, isolationPolicy());
  if (egress.mode === 'open') return undefined;
  const built = egressPolicy(egress, await apiServerAddresses(client));
  if (built === undefined) return undefined;
  await createUnlessExists(client, built.policy);
  return built.labelValue;
}

async function createUnlessExists(client: KubeClient, body: V1NetworkPolicy): Promise<void> {
  try {
    await client.networking.createNamespacedNetworkPolicy({ namespace: client.namespace, body });
  } catch (error) {
    if (httpStatus(error) !== 409) throw error;
  }
}

/**
 * Every address the API server answers on, as far as this server can tell:
 * the kubeconfig's host (resolved), the `kubernetes` service's cluster IPs
 * and its endpoints. Reads this account may not do are skipped: the
 * cluster ranges usually hold those addresses anyway.
 */
async function apiServerAddresses(client: KubeClient): Promise<string[]> {
  const found = new Set<string>();
  const host = new URL(client.server).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) found.add(host);
  else for (const { address } of await lookup(host, { all: true }).catch(() => [])) found.add(address);
  const service = await client.core.readNamespacedService({ name: 'kubernetes', namespace: 'default' }).catch(() => undefined);
  for (const ip of service?.spec?.clusterIPs ?? []) found.add(ip);
  const endpoints = await client.core.readNamespacedEndpoints({ name: 'kubernetes', namespace: 'default' }).catch(() => undefined);
  for (const subset of endpoints?.subsets ?? []) for (const address of subset.addresses ?? []) found.add(address.ip);
  return [...found].filter((ip) => isIP(ip) !== 0).sort();
}
