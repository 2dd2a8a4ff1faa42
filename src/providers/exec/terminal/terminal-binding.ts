import type { ContainerModuleLoadOptions } from 'inversify';
import { bindContributions } from '../../../core/contribution-collector.js';
import { bindSeam } from '../../../core/contributions.js';
import { LocalTerminalService } from './local-terminal-service.js';
import { TerminalBackend, TerminalService } from './terminal-service.js';

/** The owner-scoped `TerminalService` over whatever backends are bound; disposed (every PTY closed) on unload. */
export function bindTerminalService(options: Pick<ContainerModuleLoadOptions, 'bind' | 'isBound'>): void {
  bindContributions(options, TerminalBackend);
  bindSeam(options.bind, TerminalService)
    .to(LocalTerminalService)
    .inSingletonScope()
    .onDeactivation((service) => service.dispose());
}
