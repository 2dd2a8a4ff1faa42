import type { V1NetworkPolicy } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { LABELS } from '../container/container-engine.js';
import type { KubeClient } from './kube-client.js';
import { httpStatus } from './kube-errors.js';

import { ISOLATION_POLICY } from './isolation-policy-name.js';

export { ISOLATION_POLICY };

/**
 * Session pods accept no connection at all (an ingress policy with no
 * rule): no session pod reaches another, nor does anything else in the
 * cluster reach one. Effective only where the cluster's network plugin
 * enforces NetworkPolicies. Egress is left to the cluster's own policies.
 */
export function isolationPolicy(): V1NetworkPolicy {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: ISOLATION_POLICY, labels: { [LABELS.managed]: '1' } },
    spec: { podSelector: { matchLabels: { [LABELS.managed]: '1' } }, policyTypes: ['Ingress'], ingress: [] },
  };
}

/** Creates the namespace's isolation policy unless it exists (another server's is the same). */
export async function ensureIsolationPolicy(client: KubeClient): Promise<void> {
  try {
    await client.networking.createNamespacedNetworkPolicy({ namespace: client.namespace, body: isolationPolicy() });
  } catch (error) {
    if (httpStatus(error) !== 409) throw error;
  }
}
