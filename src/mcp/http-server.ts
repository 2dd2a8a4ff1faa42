import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DshHost } from '../container/dsh-host.js';
import type { Logger } from '../providers/logging/logger.js';
import type { McpElicitationAnswerer } from './elicitation-answerer.js';
import { McpConnection } from './mcp-connection.js';
import type { RunningServer } from './stdio-server.js';
import { messageOf } from '../core/describe-value.js';
import { authorizationOf, type HttpToken } from './http-auth.js';
import { HttpSessionTable, type SessionEndReason } from './http-sessions.js';
import { METRICS_PATH, serveMetrics } from './metrics-endpoint.js';

export interface HttpServeOptions {
  readonly workspace: string;
  /** TCP port on 127.0.0.1; 0 picks a free one (read it from `url`). */
  readonly port: number;
  readonly logger?: Logger;
  readonly approvals?: McpElicitationAnswerer;
  /**
   * The bearer token every request must carry (`Authorization: Bearer …`);
   * `'none'` serves without authentication (`--no-auth`), so any local user
   * can run commands as this server's user.
   */
  readonly auth: HttpToken | 'none';
  /** A session with no request for this long is disposed (default 30 min); 0 never expires one. */
  readonly idleTimeoutMs?: number;
  /** Open sessions at most (default 64); one more initialize gets a JSON-RPC error. */
  readonly maxSessions?: number;
  /**
   * Called after a session was disposed, with its `Mcp-Session-Id`, why (idle
   * expiry, client close/DELETE, shutdown) and the host session's own id.
   */
  readonly onSessionClosed?: (id: string, reason: SessionEndReason, hostSessionId: string) => void;
  /** `GET /metrics` answers without the token (`--metrics-public`). */
  readonly metricsPublic?: boolean;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 64;

export interface RunningHttpServer extends RunningServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string;
}

/** The one endpoint path; everything else is 404. */
export const MCP_PATH = '/mcp';
const MAX_INIT_BODY_BYTES = 1024 * 1024;
const LOCAL_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Serves MCP over Streamable HTTP on 127.0.0.1 only. Each MCP session (an
 * initialize request without a session id) gets its own MCP server and host
 * session. The `Mcp-Session-Id` is a bearer credential of the transport, so
 * it is a random id of its own, never the host session's id (which commands
 * see as `DSH_SESSION_ID`) and never logged; a DELETE, idle expiry or
 * `close()` disposes it. Host and Origin headers must name the loopback
 * interface, which keeps web pages from reaching the server through DNS
 * rebinding; the bearer token keeps out other local users. A refused request
 * creates nothing.
 */
export async function serveHttp(host: DshHost, options: HttpServeOptions): Promise<RunningHttpServer> {
  const log = options.logger;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessions = new HttpSessionTable({
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    maxSessions,
    onSessionClosed: (id, reason, hostSessionId) => {
      log?.info(`mcp http: session ${hostSessionId} ended (${reason})`);
      options.onSessionClosed?.(id, reason, hostSessionId);
    },
  });
  const auth = options.auth;
  if (auth === 'none') log?.warn('mcp http: authentication is off (--no-auth): any local user can run commands as this server');

  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    if (!sessions.reserve()) {
      const id = Array.isArray(body) ? undefined : (body as { id?: unknown }).id;
      return replyJsonRpc(
        res,
        503,
        -32000,
        `too many sessions: this server holds at most ${maxSessions} (--max-sessions); close one or wait for idle ones to expire`,
        typeof id === 'string' || typeof id === 'number' ? id : null,
      );
    }
    try {
      await initialize(req, res, body);
    } finally {
      sessions.release();
    }
  };

  const initialize = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    // The transport's id and the host session's (a random UUID of McpConnection's) are unrelated.
    const id = randomUUID();
    const connection = new McpConnection(host, {
      cwd: options.workspace,
      logger: log,
      approvals: options.approvals,
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: (): void => sessions.add(id, transport, connection),
    });
    const previousOnClose = connection.server.onclose;
    connection.server.onclose = () => {
      previousOnClose?.();
      // Reported once the host session is gone, so "closed" means its tasks and shell are too.
      void connection.close().then(() => sessions.closed(id));
    };
    try {
      await connection.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize that failed (validation or a throw) never registers: drop its session now.
      if (!sessions.has(id)) await connection.close();
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === METRICS_PATH) return serveMetrics(host, req, res, { public: options.metricsPublic === true, refusal: checkLocalOrigin(req), authorized: () => auth === 'none' || auth.matches(authorizationOf(req)) });
    if (url.pathname !== MCP_PATH) return reply(res, 404, 'not found: the MCP endpoint is ' + MCP_PATH);
    const refusal = checkLocalOrigin(req);
    if (refusal) return reply(res, 403, refusal);
    // Before anything else about the request is looked at: no session is created or found without the token.
    if (auth !== 'none' && !auth.matches(authorizationOf(req))) {
      res.setHeader('www-authenticate', 'Bearer realm="dsh-tools"');
      return replyJsonRpc(res, 401, -32001, 'unauthorized: send "Authorization: Bearer <token>" (see the server\'s stderr for the token file)');
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = sessions.begin(sessionId, req.method, res);
      if (!transport) return replyJsonRpc(res, 404, -32001, 'session not found (expired or closed): initialize again');
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return replyJsonRpc(res, 400, -32000, 'missing Mcp-Session-Id header');
    const body = await readJson(req);
    if (body === undefined) return replyJsonRpc(res, 400, -32700, 'request body is not valid JSON (or too large)');
    const initializing = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (!initializing) return replyJsonRpc(res, 400, -32000, 'missing Mcp-Session-Id header: send initialize first');
    return openSession(req, res, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log?.error(`mcp http: ${messageOf(error)}`);
      if (!res.headersSent) replyJsonRpc(res, 500, -32603, 'internal server error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    closed,
    close: () => {
      closing ??= (async () => {
        const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        await sessions.closeAll();
        // SSE streams are long-lived responses: cut them so the listener can close.
        server.closeAllConnections();
        await listenerClosed;
        markClosed();
      })();
      return closing;
    },
  };
}

/** Refuses requests whose Host or Origin is not the loopback interface. */
function checkLocalOrigin(req: IncomingMessage): string | undefined {
  const hostHeader = req.headers.host;
  if (!hostHeader || !LOCAL_HOSTNAMES.has(hostnameOf(`http://${hostHeader}`))) {
    return `forbidden: Host "${hostHeader ?? ''}" is not a loopback address`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !LOCAL_HOSTNAMES.has(hostnameOf(origin))) {
    return `forbidden: Origin "${origin}" is not a loopback address`;
  }
  return undefined;
}

function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Past the cap the rest is read and dropped (never kept), so the client gets the reply instead of a reset.
    if (size <= MAX_INIT_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_INIT_BODY_BYTES) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
}

function replyJsonRpc(res: ServerResponse, status: number, code: number, message: string, id: string | number | null = null): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}
