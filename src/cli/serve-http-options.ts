import { InvalidArgumentError, type Command } from 'commander';
import { isIP } from 'node:net';

/** The `serve` flags this file owns: where HTTP listens, who may call, how a stop drains. */
export interface ServeDeployOptions {
  readonly http?: number;
  readonly host?: string;
  readonly allowedHost?: readonly string[];
  readonly trustedProxy?: readonly string[];
  readonly tokenFile?: string;
  /** false with --no-auth. */
  readonly auth: boolean;
  readonly drainTimeout: number;
  readonly maxSessionsPerCaller?: number;
  readonly maxConcurrentCalls?: number;
  readonly maxConcurrentCallsPerCaller?: number;
  readonly callQueueTimeout: number;
}

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$/;

function parseAddress(value: string): string {
  const bare = value.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) === 0 && !HOST_NAME.test(bare)) throw new InvalidArgumentError('expected an IP address or a host name');
  return bare;
}

function collectHost(value: string, previous: readonly string[] = []): string[] {
  return [...previous, parseAddress(value)];
}

function collectProxy(value: string, previous: readonly string[] = []): string[] {
  const bare = value.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) === 0) throw new InvalidArgumentError('expected the IP address of a proxy');
  return [...previous, bare];
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0 || seconds > 86_400) {
    throw new InvalidArgumentError('expected seconds: a number from 0 to 86400');
  }
  return seconds;
}

function parseCount(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || !Number.isSafeInteger(count)) throw new InvalidArgumentError('expected a positive integer');
  return count;
}

/** Adds the deploy, identity and drain flags to `serve`. */
export function addServeDeployOptions(command: Command): Command {
  return command
    .option('--host <addr>', 'HTTP: the address to listen on (0.0.0.0 for every interface; not loopback needs a token)', parseAddress, '127.0.0.1')
    .option('--allowed-host <name>', 'HTTP: also accept this name in Host/Origin (repeatable), e.g. the name a proxy serves', collectHost)
    .option('--trusted-proxy <addr>', "HTTP: a proxy's IP address whose X-Forwarded-For names the client in audit records and logs (repeatable)", collectProxy)
    .option('--drain-timeout <seconds>', 'on SIGTERM/SIGINT or end of stdin: let calls in flight answer this long, then cancel them', parseSeconds, 30)
    .option('--max-sessions-per-caller <n>', 'HTTP: open sessions one token (caller) may hold', parseCount)
    .option('--max-concurrent-calls <n>', 'tool calls running at once over every session; more wait in line', parseCount)
    .option('--max-concurrent-calls-per-caller <n>', 'tool calls one caller (token) may run at once; more wait in its own line', parseCount)
    .option('--call-queue-timeout <seconds>', 'how long a call waits for --max-concurrent-calls before it fails', parseSeconds, 60);
}

/** Start errors for flags that do not fit together. */
export function checkServeDeployOptions(options: ServeDeployOptions): void {
  const httpOnly: Array<[boolean, string]> = [
    [options.tokenFile !== undefined, '--token-file'],
    [!options.auth, '--no-auth'],
    [options.host !== '127.0.0.1' && options.host !== undefined, '--host'],
    [options.allowedHost !== undefined, '--allowed-host'],
    [options.trustedProxy !== undefined, '--trusted-proxy'],
    [options.maxSessionsPerCaller !== undefined, '--max-sessions-per-caller'],
    [options.maxConcurrentCallsPerCaller !== undefined, '--max-concurrent-calls-per-caller'],
  ];
  const misplaced = httpOnly.filter(([given]) => given).map(([, flag]) => flag);
  if (options.http === undefined && misplaced.length > 0) {
    throw new Error(`${misplaced.join(' and ')} ${misplaced.length === 1 ? 'applies' : 'apply'} to --http only`);
  }
  if (!options.auth && options.tokenFile !== undefined) throw new Error('--no-auth and --token-file contradict each other');
}
