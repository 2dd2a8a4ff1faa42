import type { PluginModule } from '../../../core/plugin-module.js';
import { resolveContainerConfig } from '../../exec/engine/container-config.js';
import { engineShellModule, type ContainerShellModuleOptions } from '../../exec/engine/engine-session.module.js';
import { DockerContainerEngine } from './docker-container-engine.js';

export { containerTerminalModule, type ContainerShellModuleOptions } from '../../exec/engine/engine-session.module.js';

/**
 * Sessions in containers on a Docker (or Podman) engine at `container.host`,
 * unless `options.engine` names another engine: the engine-session module with
 * Docker as its default engine.
 */
export function containerShellModule(options: ContainerShellModuleOptions): PluginModule {
  const engine = options.engine ?? new DockerContainerEngine(resolveContainerConfig(options.container).host);
  return engineShellModule({ ...options, engine });
}
