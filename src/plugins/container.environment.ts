import path from 'node:path';
import type { PluginModule } from '../core/plugin-module.js';
import type { ContainerConfig } from '../providers/exec/engine/container-config.js';
import type { ContainerEngine } from '../providers/exec/engine/container-engine.js';
import { containerShellModule, containerTerminalModule } from '../providers/backends/docker/docker.module.js';
import { SANDBOX_MODES, isSandboxMode, type SandboxMode } from '../core/sandbox-mode.js';
import { describeValue } from '../core/describe-value.js';
import { localEnvironment, type EnvironmentOptions } from './local.environment.js';
import { checkOptionKeys, LOCAL_OPTION_KEYS } from './option-keys.js';
import { plannerModule } from '../providers/policy/planner/planner.module.js';
import { sessionRegistryModule } from '../providers/registry/registry.module.js';
import type { SessionRegistry } from '../providers/registry/session-registry.js';
import { DeferredSessionRegistry } from '../providers/registry/deferred-session-registry.js';
import { defaultSessionRecordDir, FileSessionRegistry } from '../providers/registry/file-session-registry.js';
import { CONTAINER_ESCALATION_REFUSAL } from '../providers/exec/engine/container-shell-executor.js';
import { sharedTaskRuntimeModule } from '../providers/tasks/tasks.module.js';

/** What `sandbox` means where a container or pod is the confinement. */
export interface EngineSandbox {
  readonly mode?: SandboxMode;
  readonly network?: boolean;
}

/** The local options plus the container section. */
export interface ContainerEnvironmentOptions extends EnvironmentOptions {
  readonly container: Partial<ContainerConfig> & { readonly image: string };
  /**
   * The same `sandbox` key as `sandboxedEnvironment` and the composition file,
   * with what applies to a container: `mode` `read-only` mounts the workspace
   * read-only, `workspace-write` and `danger-full-access` read-write (default
   * read-write); `network: false` means `container.network: none` unless
   * `container.network` says otherwise. No bwrap runs: the container is the confinement.
   */
  readonly sandbox?: EngineSandbox;
  /** Another engine provider (default: Docker at `container.host`). */
  readonly engine?: ContainerEngine;
  /** `serve --shared-sessions`: sessions' containers outlive this server (docs/shared-sessions.md#sandboxes). */
  readonly sharedSessions?: boolean;
}

/**
 * The local composition with every command in the calling session's own
 * container: the one-shot executor, background tasks (through the unchanged
 * task runtime) and the persistent shell all run there. The workspace is
 * bind-mounted at the same absolute path.
 */
export function containerEnvironment(options: ContainerEnvironmentOptions): PluginModule[] {
  checkOptionKeys('containerEnvironment', options, [...LOCAL_OPTION_KEYS, 'container', 'sandbox', 'engine', 'sharedSessions'], { sandbox: ['mode', 'network'] });
  const { container: section, sandbox = {}, engine, sharedSessions, ...rest } = options;
  checkEngineSandbox('containerEnvironment', sandbox);
  const container = sandbox.network === false ? { network: 'none', ...section } : section;
  // The workspace is mounted at the same absolute path, so it must be one.
  const local = rest.workspace === undefined ? rest : { ...rest, workspace: path.resolve(rest.workspace) };
  const shell = containerShellModule({
    container,
    ...(local.workspace === undefined ? {} : { workspace: local.workspace }),
    workspaceReadOnly: sandbox.mode === 'read-only',
    ...(local.executor === undefined ? {} : { executor: local.executor }),
    ...(engine === undefined ? {} : { engine }),
    ...(sharedSessions === undefined ? {} : { sharedSessions }),
  });
  const registry = sharedSessions === true ? [sessionRegistryModule(sharedRegistryOf(engine))] : [];
  return [...localEnvironment(local), ...registry].map((module) => {
    if (module.name === 'shell:local') return shell;
    if (module.name === 'terminal:local') return containerTerminalModule();
    // A shared session's tasks run detached in its sandbox, seen and served by every replica.
    if (module.name === 'tasks:local' && sharedSessions === true) return sharedTaskRuntimeModule(local.tasks);
    // The session container is the sandbox: its mounts are fixed when it starts, so escalation is refused.
    if (module.name === 'planner:local') return plannerModule({ escalationRefusal: CONTAINER_ESCALATION_REFUSAL });
    return module;
  });
}

/** Where shared sessions are recorded: the engine's own store when it has one (Kubernetes: Leases), else files beside the local engine. */
function sharedRegistryOf(engine: ContainerEngine | undefined): SessionRegistry {
  const withStore = engine as (ContainerEngine & { sessionRegistry?: () => Promise<SessionRegistry> }) | undefined;
  if (typeof withStore?.sessionRegistry === 'function') {
    return new DeferredSessionRegistry(`the records of ${withStore.endpoint}`, () => withStore.sessionRegistry!());
  }
  return new FileSessionRegistry(defaultSessionRecordDir());
}

/** A misspelt mode must not silently mount the workspace read-write. */
function checkEngineSandbox(fn: string, sandbox: EngineSandbox): void {
  if (sandbox.mode !== undefined && !isSandboxMode(sandbox.mode)) {
    throw new Error(`${fn}: sandbox.mode must be one of ${SANDBOX_MODES.join(', ')}, got ${describeValue(sandbox.mode)}`);
  }
  if (sandbox.network !== undefined && typeof sandbox.network !== 'boolean') {
    throw new Error(`${fn}: sandbox.network must be true or false, got ${describeValue(sandbox.network)}`);
  }
}
