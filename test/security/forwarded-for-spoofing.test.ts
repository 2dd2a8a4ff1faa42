// X-Forwarded-For names the client only when the connection comes from a --trusted-proxy: a client cannot
// put another address into audit records or logs by sending the header itself.
import type { IncomingMessage } from 'node:http';
import { peerOf, trustedProxySet } from '../../src/mcp/access/http-peer.js';

const request = (remoteAddress: string | undefined, forwarded?: string | string[]) =>
  ({ socket: { remoteAddress }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;

describe('peerOf', () => {
  const proxies = trustedProxySet(['10.0.0.1', '10.0.0.2', '::1']);

  it('attack: a direct client claiming another address is recorded as itself', () => {
    expect(peerOf(request('192.0.2.50', '127.0.0.1'), proxies)).toBe('192.0.2.50');
    expect(peerOf(request('192.0.2.50', '203.0.113.9'))).toBe('192.0.2.50');
  });

  it('attack: through a trusted proxy, what the client put in front of the header is skipped; the proxy-appended hop counts', () => {
    expect(peerOf(request('10.0.0.1', '127.0.0.1, 198.51.100.7'), proxies)).toBe('198.51.100.7');
    expect(peerOf(request('::ffff:10.0.0.1', ['6.6.6.6', '198.51.100.7']), proxies)).toBe('198.51.100.7');
  });

  it('a chain of trusted proxies is walked from the right to the first untrusted address', () => {
    expect(peerOf(request('10.0.0.2', '198.51.100.7, 10.0.0.1'), proxies)).toBe('198.51.100.7');
    expect(peerOf(request('::1', '[2001:db8::5]'), proxies)).toBe('2001:db8::5');
  });

  it('attack: a forged non-address entry ends the walk at the last trusted hop instead of being recorded', () => {
    expect(peerOf(request('10.0.0.1', '198.51.100.7, evil\nline'), proxies)).toBe('10.0.0.1');
    expect(peerOf(request('10.0.0.1', ''), proxies)).toBe('10.0.0.1');
  });

  it('an IPv4-mapped peer is compared and recorded as its IPv4 form', () => {
    expect(peerOf(request('::ffff:192.0.2.50'))).toBe('192.0.2.50');
    expect(peerOf(request(undefined))).toBeUndefined();
  });
});
