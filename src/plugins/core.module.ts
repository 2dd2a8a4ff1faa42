import { bindSeam } from '../core/contributions.js';
import { HostConfig } from '../core/host-config.js';
import { PluginModule } from '../core/plugin-module.js';
import { Clock, Logger } from '../providers/logging/logger.js';
import { StderrLogger, type LogLevel } from '../providers/logging/stderr-logger.js';

export interface CoreOptions extends HostConfig {
  readonly logLevel?: LogLevel;
}

/** Host config, logger and clock: what every composition has. */
export function coreModule(options: CoreOptions = {}): PluginModule {
  const { logLevel, ...config } = options;
  return new PluginModule('core', ({ bind }) => {
    bindSeam(bind, HostConfig).toConstantValue(Object.freeze(config));
    bindSeam(bind, Logger).toConstantValue(new StderrLogger(logLevel));
    bindSeam(bind, Clock).toConstantValue({ now: () => Date.now() });
  });
}
