import type { ServiceIdentifier } from 'inversify';
import { describeValue } from '../../core/describe-value.js';

/** Config key `audit`: where audit records go besides the approval service's in-memory ring. */
export interface AuditConfig {
  /** A JSON-lines file, appended to (created 0600); none by default. */
  readonly file?: string;
}

/** Config key `telemetry`: what spans carry. */
export interface TelemetryConfig {
  /** Put the command (redacted, cut at 8 KiB) on each call's span as `dsh.command`. Default false. */
  readonly includeCommand: boolean;
}

export const DEFAULT_TELEMETRY_CONFIG: TelemetryConfig = Object.freeze({ includeCommand: false });

export const TelemetryConfig: ServiceIdentifier<TelemetryConfig> = Symbol.for('dsh.TelemetryConfig');

/** What `coreModule` takes for observability. */
export interface ObservabilityOptions {
  readonly audit?: AuditConfig;
  readonly telemetry?: Partial<TelemetryConfig>;
}

export function resolveTelemetryConfig(config: Partial<TelemetryConfig> = {}): TelemetryConfig {
  const includeCommand = config.includeCommand ?? DEFAULT_TELEMETRY_CONFIG.includeCommand;
  if (typeof includeCommand !== 'boolean') {
    throw new Error(`invalid telemetry config: includeCommand must be true or false, got ${describeValue(includeCommand)}`);
  }
  return Object.freeze({ includeCommand });
}

export function checkAuditConfig(config: AuditConfig = {}): AuditConfig {
  if (config.file !== undefined && (typeof config.file !== 'string' || config.file === '')) {
    throw new Error(`invalid audit config: file must be a non-empty path, got ${describeValue(config.file)}`);
  }
  return config;
}
