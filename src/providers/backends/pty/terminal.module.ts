import { bindUnavailable } from '../../../core/contributions.js';
import { PluginModule } from '../../../core/plugin-module.js';
import { BashPtyBackend } from './bash-pty-backend.js';
import { BashPtyConfig, resolveBashPtyConfig } from '../../exec/terminal/bash-pty-config.js';
import { bindTerminalService } from '../../exec/terminal/terminal-binding.js';
import { loadPty } from './pty-loader.js';
import { TerminalBackend, TerminalService } from '../../exec/terminal/terminal-service.js';

/**
 * Local PTY terminals: the owner-scoped `TerminalService` (disposed — every
 * PTY closed and its process tree awaited — when the module is unloaded) and
 * the `shell` backend. A bad config fails here, at composition. Without a
 * loadable PTY module the service is left unbound with the reason, so the
 * persistent shell stays pending and everything else works.
 */
export function terminalModule(config: Partial<BashPtyConfig> = {}): PluginModule {
  const resolved = resolveBashPtyConfig(config);
  return new PluginModule('terminal:local', async (options) => {
    const { bind } = options;
    bind(BashPtyConfig).toConstantValue(resolved);
    const pty = await loadPty();
    if (!pty.ok) return bindUnavailable(bind, TerminalService, pty.reason);
    bind(TerminalBackend).to(BashPtyBackend).inSingletonScope();
    bindTerminalService(options);
  });
}
