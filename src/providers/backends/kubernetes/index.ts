// The Kubernetes capability's public surface (re-exported by src/index.ts).
export { KubernetesEngine } from './kubernetes-engine.js';
export {
  resolveKubernetesConfig,
  KubernetesConfigToken,
  DEFAULT_LEASE_SECONDS,
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_POD_START_TIMEOUT_MS,
  type KubernetesConfig,
  type ResolvedKubernetesConfig,
} from './kubernetes-config.js';
export type { PodResources, ResourceList, Toleration, WorkspaceVolume } from './kubernetes-config-checks.js';
export { ISOLATION_POLICY } from './isolation-policy-name.js';
