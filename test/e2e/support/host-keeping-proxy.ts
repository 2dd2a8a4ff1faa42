// A small reverse proxy such as an operator puts in front of the server: it
// keeps the client's Host header, adds X-Forwarded-*, and streams both ways
// (event streams included). Plus a fetch that sends a chosen Host header,
// since the platform fetch always derives Host from the URL.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export interface RunningProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  /** Host headers of the requests it forwarded, in order. */
  readonly forwardedHosts: string[];
  close(): Promise<void>;
}

/** Proxies every request to `target` (an origin such as `http://127.0.0.1:8765`), keeping the Host header. */
export async function startHostKeepingProxy(target: URL): Promise<RunningProxy> {
  const forwardedHosts: string[] = [];
  const server: Server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = {
      ...req.headers,
      'x-forwarded-for': req.socket.remoteAddress ?? '',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': req.headers.host ?? '',
    };
    forwardedHosts.push(req.headers.host ?? '');
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // Event streams must reach the client as they come, not when the response ends.
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('bad gateway\n');
      else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    forwardedHosts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A `fetch` for the MCP client transport that sends `host` as the Host header (the URL only picks where to connect). */
export function fetchWithHost(host: string): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      const headers: Record<string, string> = { ...Object.fromEntries(new Headers(init?.headers).entries()), host };
      const req = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: init?.method ?? 'GET', headers }, (res) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const status = res.statusCode ?? 500;
        const body = status === 204 || status === 304 || init?.method === 'HEAD' ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers: responseHeaders }));
      });
      req.on('error', reject);
      init?.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
      req.end(typeof init?.body === 'string' ? init.body : undefined);
    });
}
