import type { ContainerModuleLoadOptions } from 'inversify';
import { PluginModule } from '../../container/plugin-module.js';
import { BashPtyBackend } from './bash-pty-backend.js';
import { BashPtyConfig, resolveBashPtyConfig } from './bash-pty-config.js';
import { LocalTerminalService } from './local-terminal-service.js';
import { TerminalBackend, TerminalService } from './terminal-service.js';

/**
 * Local PTY terminals: the owner-scoped `TerminalService` (disposed — every
 * PTY closed and its process tree awaited — when the module is unloaded) and
 * the `shell` backend. A bad config fails here, at composition.
 */
export function terminalModule(config: Partial<BashPtyConfig> = {}): PluginModule {
  const resolved = resolveBashPtyConfig(config);
  return new PluginModule('terminal:local', ({ bind }) => {
    bind(BashPtyConfig).toConstantValue(resolved);
    bind(TerminalBackend).to(BashPtyBackend).inSingletonScope();
    bindTerminalService(bind);
  });
}

/** The owner-scoped `TerminalService` over whatever backends are bound; disposed (every PTY closed) on unload. */
export function bindTerminalService(bind: ContainerModuleLoadOptions['bind']): void {
  bind(TerminalService)
    .to(LocalTerminalService)
    .inSingletonScope()
    .onDeactivation((service) => service.dispose());
}
