import type { SandboxedEnvironmentOptions } from '../plugins/sandboxed.environment.js';
import type { ContainerConfig } from '../providers/container-engine/container-config.js';
import type { KubernetesConfig } from '../providers/kubernetes/kubernetes-config.js';

/**
 * What a command composes: the sandboxed options plus, in container mode, the
 * `container:` section and in Kubernetes mode the `kubernetes:` one (its own
 * file: the flags and the config file both read it).
 */
export type CliEnvironment = SandboxedEnvironmentOptions & {
  readonly container?: Partial<ContainerConfig>;
  readonly kubernetes?: Partial<KubernetesConfig>;
  /** `serve` settings the config file may carry (its flags override them); not part of the composition. */
  readonly serve?: { readonly sessionLifetimeMs?: number };
};
