import { HostConfig } from '../container/host-config.js';
import { PluginModule } from '../container/plugin-module.js';
import { Clock, Logger } from '../providers/logging/logger.js';
import { StderrLogger, type LogLevel } from '../providers/logging/stderr-logger.js';

export interface CoreOptions extends HostConfig {
  readonly logLevel?: LogLevel;
}

/** Host config, logger and clock: what every composition has. */
export function coreModule(options: CoreOptions = {}): PluginModule {
  const { logLevel, ...config } = options;
  return new PluginModule('core', ({ bind }) => {
    bind(HostConfig).toConstantValue(Object.freeze(config));
    bind(Logger).toConstantValue(new StderrLogger(logLevel));
    bind(Clock).toConstantValue({ now: () => Date.now() });
  });
}
