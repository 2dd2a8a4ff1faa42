import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/** The address the server listens on unless told otherwise. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True for an address only this machine can reach: `localhost`, 127.0.0.0/8, ::1. */
function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (LOOPBACK_NAMES.has(bare)) return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * Refuses to start where the network could reach a server without a token:
 * `--no-auth` is for loopback addresses only.
 */
export function checkListenAddress(host: string, authenticated: boolean): void {
  if (authenticated || isLoopbackAddress(host)) return;
  throw new Error(
    `refusing to listen on ${host} without a token: anyone who can reach it could run commands. ` +
      'Drop --no-auth (a token is then required) or listen on 127.0.0.1',
  );
}

/**
 * The Host/Origin check: a request must name a loopback host, the listen
 * address itself (when it is a specific one) or one of `--allowed-host`.
 * It keeps web pages out (DNS rebinding), which a token alone would not.
 */
export class HostAllowList {
  private readonly names: ReadonlySet<string>;

  constructor(listenHost: string, allowed: readonly string[] = []) {
    const names = new Set<string>(LOOPBACK_NAMES);
    const listen = normalized(listenHost);
    if (listen !== '0.0.0.0' && listen !== '::' && listen !== '[::]') names.add(listen);
    for (const name of allowed) names.add(normalized(name));
    this.names = names;
  }

  /** Why `req` is refused (403), or undefined when its Host and Origin are allowed. */
  refusal(req: IncomingMessage): string | undefined {
    const hostHeader = req.headers.host;
    if (!hostHeader || !this.allows(hostnameOf(`http://${hostHeader}`))) {
      return `forbidden: Host "${hostHeader ?? ''}" is neither a loopback address nor an --allowed-host`;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.allows(hostnameOf(origin))) {
      return `forbidden: Origin "${origin}" is neither a loopback address nor an --allowed-host`;
    }
    return undefined;
  }

  private allows(hostname: string): boolean {
    if (hostname === '') return false;
    return this.names.has(hostname) || this.names.has(hostname.replace(/^\[(.*)\]$/, '$1'));
  }
}

/** A host name as URL parsing spells it (lower case, IPv6 in brackets), or the raw text if it does not parse. */
function normalized(name: string): string {
  const parsed = hostnameOf(`http://${isIP(name) === 6 ? `[${name}]` : name}`);
  return parsed === '' ? name.toLowerCase() : parsed;
}

function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
