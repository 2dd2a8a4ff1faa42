import path from 'node:path';
import type { PluginModule } from '../core/plugin-module.js';
import type { ContainerConfig } from '../providers/container-engine/container-config.js';
import type { ContainerEngine } from '../providers/container-engine/container-engine.js';
import { containerShellModule, containerTerminalModule } from '../providers/container-engine/container-engine.module.js';
import type { SandboxMode } from '../core/sandbox-mode.js';
import { localEnvironment, type EnvironmentOptions } from './local.environment.js';
import { plannerModule } from '../providers/planner/planner.module.js';
import { CONTAINER_ESCALATION_REFUSAL } from '../providers/container-engine/container-shell-executor.js';

/** The local options plus the container section. */
export interface ContainerEnvironmentOptions extends EnvironmentOptions {
  readonly container: Partial<ContainerConfig> & { readonly image: string };
  /**
   * `read-only` mounts the workspace read-only; `workspace-write` and
   * `danger-full-access` read-write. Default read-write. No bwrap runs: the container is the confinement.
   */
  readonly sandboxMode?: SandboxMode;
  /** Another engine provider (default: Docker at `container.host`). */
  readonly engine?: ContainerEngine;
}

/**
 * The local composition with every command in the calling session's own
 * container: the one-shot executor, background tasks (through the unchanged
 * task runtime) and the persistent shell all run there. The workspace is
 * bind-mounted at the same absolute path.
 */
export function containerEnvironment(options: ContainerEnvironmentOptions): PluginModule[] {
  const { container, sandboxMode, engine, ...rest } = options;
  // The workspace is mounted at the same absolute path, so it must be one.
  const local = rest.workspace === undefined ? rest : { ...rest, workspace: path.resolve(rest.workspace) };
  const shell = containerShellModule({
    container,
    ...(local.workspace === undefined ? {} : { workspace: local.workspace }),
    workspaceReadOnly: sandboxMode === 'read-only',
    ...(local.executor === undefined ? {} : { executor: local.executor }),
    ...(engine === undefined ? {} : { engine }),
  });
  return localEnvironment(local).map((module) => {
    if (module.name === 'shell:local') return shell;
    if (module.name === 'terminal:local') return containerTerminalModule();
    // The session container is the sandbox: its mounts are fixed when it starts, so escalation is refused.
    if (module.name === 'planner:local') return plannerModule({ escalationRefusal: CONTAINER_ESCALATION_REFUSAL });
    return module;
  });
}
