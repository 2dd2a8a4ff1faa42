import type { SandboxedEnvironmentOptions } from '../plugins/sandboxed.environment.js';
import type { ContainerConfig } from '../providers/container/container-config.js';

/**
 * What a command composes: the sandboxed options plus, in container mode, the
 * `container:` section (its own file: the flags and the config file both read it).
 */
export type CliEnvironment = SandboxedEnvironmentOptions & { readonly container?: Partial<ContainerConfig> };
