import { InvalidArgumentError } from 'commander';
import type { DshHost } from '../container/dsh-host.js';
import type { Logger } from '../providers/logging/logger.js';
import type { CliEnvironment } from './cli-options.js';
import { hideServerFile } from '../core/server-files.js';

/** The observability flags of `serve`. */
export interface ObserveFlags {
  /** `--audit-log <file>`: a JSON-lines audit file (over the config's `audit.file`). */
  readonly auditLog?: string;
  /** `--metrics-port <port>`: a loopback listener serving `/metrics` without a token. */
  readonly metricsPort?: number;
  /** `--metrics-public`: the HTTP server's `/metrics` answers without the token. */
  readonly metricsPublic?: boolean;
}

export function parseAuditLog(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('expected a file path');
  return value;
}

export function parseMetricsPort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('expected a TCP port 0-65535 (0 = any free port)');
  return port;
}

/** Refuses flag combinations that would do nothing. */
export function checkObserveFlags(flags: ObserveFlags, http: boolean): void {
  if (flags.metricsPublic === true && !http) {
    throw new Error('--metrics-public applies to --http only (the --metrics-port listener never asks for a token)');
  }
}

/** The composition with `--audit-log` applied. */
export function withObserveFlags(environment: CliEnvironment, flags: ObserveFlags): CliEnvironment {
  const observed = flags.auditLog === undefined ? environment : { ...environment, audit: { ...environment.audit, file: flags.auditLog } };
  // Commands never read the audit log (docs/security.md#hidden-server-files).
  hideServerFile(observed.audit?.file);
  return observed;
}

/** Starts the `--metrics-port` listener when asked; its URL goes to stderr. */
export async function startMetricsPort(host: DshHost, flags: ObserveFlags, logger: Logger): Promise<{ close(): Promise<void> } | undefined> {
  if (flags.metricsPort === undefined) return undefined;
  const { startMetricsListener } = await import('../mcp/endpoints/metrics-endpoint.js');
  const listener = await startMetricsListener(host, flags.metricsPort, logger);
  process.stderr.write(`dsh-tools: metrics at ${listener.url}\n`);
  return listener;
}
