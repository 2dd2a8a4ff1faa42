import { PluginModule } from '../../core/plugin-module.js';
import { SessionRegistry } from './session-registry.js';

/** Binds the shared sessions' records (`serve --shared-sessions`, docs/shared-sessions.md#registry). */
export function sessionRegistryModule(registry: SessionRegistry): PluginModule {
  return new PluginModule('registry:shared-sessions', ({ bind }) => {
    bind(SessionRegistry).toConstantValue(registry);
  });
}
