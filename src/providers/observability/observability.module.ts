import type { ContainerModuleLoadOptions } from 'inversify';
import { bindContributions } from '../../core/contribution-collector.js';
import { bindProvider } from '../../core/contributions.js';
import { Logger } from '../logging/logger.js';
import { AuditObserver } from './audit-observer.js';
import { AuditSink } from './audit-sink.js';
import { HostMetrics } from './host-metrics.js';
import { JsonLinesAuditSink } from './json-lines-audit-sink.js';
import { MetricsObserver } from './metrics-observer.js';
import { checkAuditConfig, resolveTelemetryConfig, TelemetryConfig, type ObservabilityOptions } from './observability-config.js';
import { bindToolCallObserver } from './tool-call-observer.js';
import { TracingObserver } from './tracing-observer.js';

/**
 * What every composition observes (bound by `coreModule`): the host's
 * metrics, one span per call, and the audit observer that feeds every bound
 * `AuditSink` (a JSON-lines file with `audit.file`). Embedders add their own
 * `ToolCallObserver`s and `AuditSink`s in their own modules.
 */
export function bindObservability(
  options: Pick<ContainerModuleLoadOptions, 'bind' | 'isBound'>,
  config: ObservabilityOptions = {},
): void {
  const { bind } = options;
  const audit = checkAuditConfig(config.audit);
  bindProvider(bind, HostMetrics, HostMetrics);
  bind(TelemetryConfig).toConstantValue(resolveTelemetryConfig(config.telemetry));
  bindContributions(options, AuditSink);
  bindToolCallObserver(bind, MetricsObserver);
  bindToolCallObserver(bind, TracingObserver);
  bindToolCallObserver(bind, AuditObserver);
  if (audit.file !== undefined) {
    const file = audit.file;
    bind(AuditSink)
      .toDynamicValue((context) => {
        const logger = context.get(Logger, { optional: true });
        return new JsonLinesAuditSink(file, logger ? (message) => logger.warn(message) : undefined);
      })
      .inSingletonScope()
      .onDeactivation((sink) => (sink as JsonLinesAuditSink).close());
  }
}
