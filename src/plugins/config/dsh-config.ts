import type { ContainerConfig } from '../../providers/exec/engine/container-config.js';
import type { KubernetesConfig } from '../../providers/backends/kubernetes/kubernetes-config.js';
import type { SandboxedEnvironmentOptions } from '../sandboxed.environment.js';

/**
 * A composition file's content (docs/configuration.md, docs/config.schema.json):
 * the sandboxed environment's options plus the `container:` or `kubernetes:`
 * section, and the `serve:` settings the CLI reads. `configModules` turns it
 * into the matching environment.
 */
export type DshConfig = SandboxedEnvironmentOptions & {
  readonly container?: Partial<ContainerConfig>;
  readonly kubernetes?: Partial<KubernetesConfig>;
  /** `dsh-tools serve` settings (its flags override them); not part of the composition. */
  readonly serve?: { readonly sessionLifetimeMs?: number; readonly console?: boolean; readonly operatorTokenFile?: string; readonly sharedSessions?: boolean };
};
