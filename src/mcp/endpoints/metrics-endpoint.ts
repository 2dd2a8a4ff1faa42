import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { DshHost } from '../../container/dsh-host.js';
import { messageOf } from '../../core/describe-value.js';
import type { Logger } from '../../providers/logging/logger.js';
import { HostMetrics } from '../../providers/observability/host-metrics.js';

/** Where the host's metrics are served, in the Prometheus text format. */
export const METRICS_PATH = '/metrics';

export interface MetricsAccess {
  /** `--metrics-public`: no token needed. */
  readonly public: boolean;
  /** Why the request's Host or Origin is refused, if it is (the MCP endpoint's own check). */
  readonly refusal?: string;
  /** Whether the request carries a token the server accepts. */
  readonly authorized: () => boolean;
}

/**
 * Answers `GET /metrics` (and HEAD) with the host's registry. Behind the
 * same Host/Origin check as the MCP endpoint, and behind the token unless
 * `public`. Reveals counts only: no command, session id or output.
 */
export async function serveMetrics(host: DshHost, req: IncomingMessage, res: ServerResponse, access: MetricsAccess): Promise<void> {
  if (access.refusal !== undefined) return reply(res, 403, access.refusal);
  if (!access.public && !access.authorized()) {
    res.setHeader('www-authenticate', 'Bearer realm="dsh-tools"');
    return reply(res, 401, 'unauthorized: send "Authorization: Bearer <token>", or start the server with --metrics-public');
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return reply(res, 405, `method not allowed: ${METRICS_PATH} answers GET`);
  }
  if (!host.isBound(HostMetrics)) return reply(res, 404, 'not found: this composition records no metrics');
  let exposition: { readonly contentType: string; readonly text: string };
  try {
    exposition = await host.get(HostMetrics).exposition();
  } catch (error) {
    return reply(res, 503, `metrics unavailable: ${messageOf(error)}`);
  }
  res.writeHead(200, { 'content-type': exposition.contentType, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : exposition.text);
}

export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A client still sending its headers after this long is dropped (node checks every `CHECK_INTERVAL_MS`). */
const HEADERS_TIMEOUT_MS = 5_000;
/** A whole request (a body nobody asked for) may take this long. */
const REQUEST_TIMEOUT_MS = 10_000;
const CHECK_INTERVAL_MS = 1_000;

/**
 * `serve --metrics-port`: a listener on 127.0.0.1 that serves only
 * `/metrics`, without a token (nothing but this machine can reach it; the
 * Host check, made first, keeps web pages out through DNS rebinding). A
 * request other than a bodiless GET or HEAD gets its answer and the
 * connection closed (its body is never read on); a client that stalls is
 * dropped after seconds, not node's minutes.
 */
export async function startMetricsListener(host: DshHost, port: number, logger?: Logger): Promise<MetricsListener> {
  const options = { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: CHECK_INTERVAL_MS };
  const deadlines = new HeaderDeadlines(HEADERS_TIMEOUT_MS);
  const server = createServer(options, (req, res) => {
    deadlines.requestArrived(req.socket, res);
    const bodiless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
    if (!bodiless || (req.method !== 'GET' && req.method !== 'HEAD')) res.shouldKeepAlive = false;
    const hostname = hostnameOf(req.headers.host);
    if (!LOOPBACK_HOSTS.has(hostname)) return reply(res, 403, `forbidden: Host "${req.headers.host ?? ''}" is not a loopback address`);
    // The origin-form path itself: `//other/metrics` is not /metrics, though a URL parser would make it so.
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== METRICS_PATH) return reply(res, 404, `not found: the metrics are at ${METRICS_PATH}`);
    serveMetrics(host, req, res, { public: true, authorized: () => true }).catch((error: unknown) => {
      logger?.error(`metrics: ${messageOf(error)}`);
      if (!res.headersSent) reply(res, 500, 'internal server error');
      else res.end();
    });
  });
  server.on('connection', (socket: Socket) => deadlines.opened(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Each connection must have sent a whole request head within `limitMs` of
 * opening, or of its previous answer: a slow client trickling header bytes
 * is dropped. Our own timer as well as node's `headersTimeout`, whose
 * periodic check does not run in every embedding (it did not under jest).
 */
class HeaderDeadlines {
  private readonly timers = new WeakMap<Socket, NodeJS.Timeout>();

  constructor(private readonly limitMs: number) {}

  opened(socket: Socket): void {
    socket.once('close', () => clearTimeout(this.timers.get(socket)));
    this.arm(socket);
  }

  requestArrived(socket: Socket, res: ServerResponse): void {
    clearTimeout(this.timers.get(socket));
    res.once('finish', () => this.arm(socket));
  }

  private arm(socket: Socket): void {
    if (socket.destroyed) return;
    this.timers.set(socket, setTimeout(() => socket.destroy(), this.limitMs).unref());
  }

}

function hostnameOf(header: string | undefined): string {
  try {
    return new URL(`http://${header ?? ''}`).hostname;
  } catch {
    return '';
  }
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
}
