import { InvalidArgumentError, type Command } from 'commander';

/** The `serve` flags bounding how long and how many HTTP clients may hold a connection (docs/operations.md, Limits). */
export interface ServeConnectionFlags {
  readonly httpHeadersTimeout?: number;
  readonly httpBodyTimeout?: number;
  readonly httpIdleTimeout?: number;
  readonly maxUnauthenticatedConnections?: number;
}

function parsePositiveSeconds(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new InvalidArgumentError('expected seconds: a number above 0, at most 3600');
  }
  return seconds;
}

function parseConnections(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > 1_000_000) throw new InvalidArgumentError('expected a positive integer');
  return count;
}

/** Adds the connection deadlines and the unauthenticated-connection cap; the defaults live in http-timeouts.ts. */
export function addServeConnectionOptions(command: Command): Command {
  return command
    .option('--http-headers-timeout <seconds>', 'HTTP: a request head must arrive within this long of the connection opening (default 10)', parsePositiveSeconds)
    .option('--http-body-timeout <seconds>', 'HTTP: a request body must arrive within this long of its head (default 30)', parsePositiveSeconds)
    .option('--http-idle-timeout <seconds>', 'HTTP: a kept-alive connection with no request is closed after this long (default 15)', parsePositiveSeconds)
    .option('--max-unauthenticated-connections <n>', 'HTTP: connections that have not sent a valid token, at most; past it the oldest is closed (default 128)', parseConnections);
}

/** The flags given, as `serveHttp`'s `connectionLimits` (absent ones keep their defaults). */
export function connectionLimitsOf(flags: ServeConnectionFlags): Record<string, number> {
  const limits: Record<string, number> = {};
  if (flags.httpHeadersTimeout !== undefined) limits.headersTimeoutMs = flags.httpHeadersTimeout * 1000;
  if (flags.httpBodyTimeout !== undefined) limits.bodyTimeoutMs = flags.httpBodyTimeout * 1000;
  if (flags.httpIdleTimeout !== undefined) limits.idleTimeoutMs = flags.httpIdleTimeout * 1000;
  if (flags.maxUnauthenticatedConnections !== undefined) limits.maxUnauthenticated = flags.maxUnauthenticatedConnections;
  return limits;
}
