import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { canonicalAddress } from '../../providers/exec/process/tcp-socket-owners.js';

/**
 * The client's address: the connection's peer, unless that peer is one of
 * `trustedProxies` (`--trusted-proxy`), in which case the `X-Forwarded-For`
 * entries are read from the right (the ones the trusted proxies appended)
 * and the first address that is not itself a trusted proxy is the client.
 * `X-Forwarded-For` from anyone else is ignored: it is the client's own word.
 * An entry that is not an IP address ends the walk at the last trusted hop.
 */
export function peerOf(req: IncomingMessage, trustedProxies: ReadonlySet<string> = new Set()): string | undefined {
  const direct = normalized(req.socket.remoteAddress);
  if (direct === undefined || !trustedProxies.has(direct)) return direct;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((hop) => hop.trim()).filter(Boolean);
  let client = direct;
  for (const hop of hops.reverse()) {
    const address = normalized(hop);
    if (address === undefined) break;
    client = address;
    if (!trustedProxies.has(address)) break;
  }
  return client;
}

/** The set `peerOf` compares against, normalised like the addresses it reads. */
export function trustedProxySet(addresses: readonly string[] = []): ReadonlySet<string> {
  return new Set(addresses.map((address) => normalized(address) ?? address));
}

/** An IP address as compared (`canonicalAddress`, brackets dropped); undefined when it is none. */
function normalized(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) === 0 ? undefined : canonicalAddress(bare);
}

/** `{ address }` for `describeSessionClient`, or nothing when the address is unknown. */
export function addressOf(address: string | undefined): { address?: string } {
  return address === undefined ? {} : { address };
}
