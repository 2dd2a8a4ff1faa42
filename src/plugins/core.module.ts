import { bindSeam } from '../core/contributions.js';
import { HostConfig } from '../core/host-config.js';
import { PluginModule } from '../core/plugin-module.js';
import { Clock, Logger } from '../providers/logging/logger.js';
import { StderrLogger, type LogFormat, type LogLevel } from '../providers/logging/stderr-logger.js';
import { bindObservability } from '../providers/observability/observability.module.js';
import type { ObservabilityOptions } from '../providers/observability/observability-config.js';

export interface CoreOptions extends HostConfig, ObservabilityOptions {
  readonly logLevel?: LogLevel;
  /** `text` (default) or `json`: one JSON object per line with a timestamp. */
  readonly logFormat?: LogFormat;
}

/** Host config, logger, clock, metrics, spans and the audit trail: what every composition has. */
export function coreModule(options: CoreOptions = {}): PluginModule {
  const { logLevel, logFormat, audit, telemetry, ...config } = options;
  return new PluginModule('core', (load) => {
    const { bind } = load;
    bindSeam(bind, HostConfig).toConstantValue(Object.freeze(config));
    bindSeam(bind, Logger).toConstantValue(new StderrLogger(logLevel, logFormat));
    bindSeam(bind, Clock).toConstantValue({ now: () => Date.now() });
    bindObservability(load, { audit, telemetry });
  });
}
