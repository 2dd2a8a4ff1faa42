import { isInitializeRequest, isLegacyRequest } from '@modelcontextprotocol/server';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { DshHost } from '../container/dsh-host.js';
import type { Clock, Logger } from '../providers/logging/logger.js';
import type { McpElicitationAnswerer } from './approvals/elicitation-answerer.js';
import type { RunningServer } from './stdio-server.js';
import { messageOf } from '../core/describe-value.js';
import { authorizationOf, type HttpToken } from './access/http-auth.js';
import type { SessionEndReason } from './legacy/http-sessions.js';
import { sessionTables } from './session-tables.js';
import { METRICS_PATH, serveMetrics } from './endpoints/metrics-endpoint.js';
import { isApprovalCallbackPath, serveApprovalCallback } from './endpoints/approval-callback.js';
import { ApprovalCallbacks } from '../providers/policy/approval/webhook/webhook-answerer.js';
import { checkListenAddress, DEFAULT_HTTP_HOST, HostAllowList } from './access/http-access.js';
import { answerHealth, HEALTH_PATH, READY_PATH } from './endpoints/http-health.js';
import { reply, replyJsonRpc, requestIdOf } from './transport/http-replies.js';
import type { CallGate } from './calls/call-gate.js';
import { drainWithin, settlesWithin } from './transport/drain.js';
import { DRAINING_MESSAGE } from './transport/draining-transport.js';
import { checkBody, readBody } from './transport/http-body.js';
import { openLegacySession, type LegacySessionDeps } from './legacy/http-legacy.js';
import { serveSessionRequest, SESSION_BODY_BYTES, type SessionRequestDeps } from './legacy/session-request.js';
import { adoptLegacy } from './legacy/adopt-legacy.js';
import { ModernHttp } from './modern/http-modern.js';
import { answerOAuthPath, refuseUnauthorized } from './access/http-oauth.js';
import { PARSE_ERROR, type RpcError } from './transport/jsonrpc-checks.js';
import { BoundedEventStore, REPLAY_LIMITS } from './transport/sse-replay.js';
import { ReplayBudget, type ReplayByteLimits } from './transport/replay-budget.js';
import { toWebRequest } from './transport/node-web.js';
import { DEFAULT_CONNECTION_LIMITS, guardConnections, type HttpConnectionLimits } from './transport/http-timeouts.js';
import { DEFAULT_CALLER } from './access/token-files.js';
import { PeerCheck } from './access/http-peer-check.js';
import { observeHttpAnswer } from './access/http-observe.js';
import { peerOf, trustedProxySet } from './access/http-peer.js';
import { ConsoleHttp, isConsolePath } from './console/console-http.js';
import type { ConsoleParts } from './console/console-module.js';
import type { SessionRegistry } from '../providers/registry/session-registry.js';
import { SharedSessions } from './sessions/shared-sessions.js';
import { shareApprovals } from './approvals/share-approvals.js';

export interface HttpServeOptions {
  readonly workspace: string;
  /** TCP port; 0 picks a free one (read it from `url`). */
  readonly port: number;
  /** The address to listen on (default 127.0.0.1); a non-loopback one requires `auth`. */
  readonly host?: string;
  /** Host names the Host/Origin check accepts besides loopback and the listen address (`--allowed-host`). */
  readonly allowedHosts?: readonly string[];
  readonly logger?: Logger;
  readonly approvals?: McpElicitationAnswerer;
  /**
   * The bearer tokens (`Authorization: Bearer …`), each naming a caller;
   * `'none'` serves without authentication (`--no-auth`, loopback only), so
   * any local user can run commands as this server's user.
   */
  readonly auth: HttpToken | 'none';
  /**
   * A session idle this long (no request in flight, no open event stream, no
   * running background task) is released (default 30 min); 0 never.
   */
  readonly idleTimeoutMs?: number;
  /** Every session ends this long after it opened, busy or not, with its tasks (default 24 h); 0 never. */
  readonly sessionLifetimeMs?: number;
  /** A session idle this long may be released to make room for a new one at a cap (default 5 s). */
  readonly evictAfterMs?: number;
  /** Reads the time for the idle stages (tests); default: the system clock. */
  readonly clock?: Clock;
  /** Open sessions at most (default 64); one more initialize gets a JSON-RPC error. */
  readonly maxSessions?: number;
  /** Open sessions one caller may hold (`--max-sessions-per-caller`); default: only `maxSessions`. */
  readonly maxSessionsPerCaller?: number;
  /** The server-wide cap on concurrent tool calls (`--max-concurrent-calls`). */
  readonly callGate?: CallGate;
  /**
   * Called after a session was disposed, with its `Mcp-Session-Id`, why (idle
   * expiry, client close/DELETE, shutdown) and the host session's own id.
   */
  readonly onSessionClosed?: (id: string, reason: SessionEndReason, hostSessionId: string) => void;
  /** `GET /metrics` answers without the token (`--metrics-public`). */
  readonly metricsPublic?: boolean;
  /** What the SSE replay stores may hold, per message, session and server (default `REPLAY_BYTE_LIMITS`). */
  readonly replayBytes?: ReplayByteLimits;
  /** Header, body and idle timeouts and the cap on unauthenticated connections (default `DEFAULT_CONNECTION_LIMITS`). */
  readonly connectionLimits?: Partial<HttpConnectionLimits>;
  /** Proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`); from anyone else it is ignored. */
  readonly trustedProxies?: readonly string[];
  /** The operator console at `/console` (`--console`): its operator tokens and what `loadConsole` added to the host. */
  readonly console?: ConsoleParts & { readonly operators: HttpToken };
  /**
   * Where sessions are recorded so any replica serves any of them
   * (`--shared-sessions`, docs/shared-sessions.md); without it every
   * session lives and ends with this server.
   */
  readonly registry?: SessionRegistry;
  /** Ends a shared session's sandbox on every replica, when its client closed it (with `registry`). */
  readonly endShared?: (sessionId: string) => Promise<void>;
}

const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
const DEFAULT_SESSION_LIFETIME_MS = 24 * 3600_000;
const DEFAULT_MAX_SESSIONS = 64;
/** What a refused request during a drain is told to wait before retrying (another replica, or this one restarted). */
const RETRY_AFTER_SECONDS = '5';
/** After the last answer was handed over, how long its response stream may take to end. */
const FLUSH_MS = 5000;
/** An initialize larger than this is refused (400 -32700) before any session exists. */
const OPENING_BODY_BYTES = 1024 * 1024;

export interface RunningHttpServer extends RunningServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string;
}

/** The MCP endpoint path; besides it only `/healthz` and `/readyz` answer, everything else is 404. */
export const MCP_PATH = '/mcp';

/**
 * Serves MCP over Streamable HTTP (127.0.0.1 unless `host` says otherwise).
 * Each MCP session (an initialize request without a session id) gets its own
 * MCP server and host session, owned by the caller whose token opened it. The
 * `Mcp-Session-Id` is a bearer credential of the transport, so it is a random
 * id of its own, never the host session's id (which commands see as
 * `DSH_SESSION_ID`) and never logged (audit records carry it); a DELETE, idle expiry or `close()`
 * disposes it. Host and Origin headers must name loopback, the listen address
 * or an allowed host, which keeps web pages out (DNS rebinding); the token
 * keeps out everyone else. A refused request creates nothing.
 */
export async function serveHttp(host: DshHost, options: HttpServeOptions): Promise<RunningHttpServer> {
  const log = options.logger;
  const listenHost = options.host ?? DEFAULT_HTTP_HOST;
  const auth = options.auth;
  checkListenAddress(listenHost, auth !== 'none');
  const access = new HostAllowList(listenHost, options.allowedHosts);
  const peers = new PeerCheck();
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const trusted = trustedProxySet(options.trustedProxies);
  const clientOf = (req: IncomingMessage) => peerOf(req, trusted);
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const sessionLifetimeMs = options.sessionLifetimeMs ?? DEFAULT_SESSION_LIFETIME_MS;
  const shared =
    options.registry &&
    new SharedSessions({ registry: options.registry, endShared: options.endShared, idleMs: idleTimeoutMs, maxLifetimeMs: sessionLifetimeMs, identified: auth !== 'none', logger: log });
  const { sessions, handles } = sessionTables(host, {
    ...options,
    ...(log ? { logger: log } : {}),
    idleTimeoutMs,
    sessionLifetimeMs,
    maxSessions,
    ...(shared ? { shared } : {}),
  });
  if (options.registry && options.approvals && auth !== 'none') shareApprovals(host, options.approvals.roundTrips, auth, options.registry, log);
  if (auth === 'none') log?.warn('mcp http: authentication is off (--no-auth): any local user can run commands as this server');
  let draining = false;
  const refuseDraining = (res: ServerResponse, body: unknown = null) =>
    replyJsonRpc(res, 503, -32000, DRAINING_MESSAGE, requestIdOf(body), { 'retry-after': RETRY_AFTER_SECONDS });

  const cancelled = new AbortController();
  const modern = new ModernHttp(
    { host, handles, cancelled: cancelled.signal, ...(log ? { logger: log } : {}), ...(options.callGate ? { callGate: options.callGate } : {}), ...(options.approvals ? { approvals: options.approvals.roundTrips } : {}) },
    log,
  );
  const replayBudget = new ReplayBudget(options.replayBytes);
  const legacyDeps: LegacySessionDeps = {
    host,
    workspace: options.workspace,
    sessions,
    identified: auth !== 'none',
    peerOf: clientOf,
    eventStore: () => new BoundedEventStore(REPLAY_LIMITS, Date.now, replayBudget),
    ...(log ? { logger: log } : {}),
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...(options.callGate ? { callGate: options.callGate } : {}),
    ...(shared ? { shared } : {}),
  };
  const refuse = (res: ServerResponse, refusal: RpcError) =>
    replyJsonRpc(res, 400, refusal.error.code, refusal.error.message, refusal.id);

  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown, caller: string): Promise<void> => {
    const slot = sessions.reserve(caller);
    if (typeof slot === 'string') return replyJsonRpc(res, 503, -32000, sessions.tooMany(slot, caller), requestIdOf(body));
    await openLegacySession(legacyDeps, req, res, body, caller, slot);
  };
  const sessionDeps: SessionRequestDeps = {
    sessions,
    draining: () => draining,
    peerOf: clientOf,
    refuseDraining,
    ...(shared ? { shared, adopt: adoptLegacy(shared, legacyDeps, () => draining) } : {}),
  };

  const refusalOf = async (req: IncomingMessage) => access.refusal(req) ?? (await peers.refusal(req));
  const sources = { host, sessions: () => [...sessions.liveSessions(), ...handles.liveSessions()] };
  const operatorConsole = options.console && new ConsoleHttp({ ...sources, ...options.console }, { operators: options.console.operators, refusal: refusalOf, authenticated: (req) => guard.authenticated(req) });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (operatorConsole && isConsolePath(url.pathname)) return operatorConsole.serve(req, res, url);
    if (url.pathname === HEALTH_PATH || url.pathname === READY_PATH) {
      return answerHealth(url.pathname, req.method, res, { host, draining: () => draining, ...(log ? { logger: log } : {}) });
    }
    if (url.pathname === METRICS_PATH) {
      return serveMetrics(host, req, res, {
        public: options.metricsPublic === true,
        refusal: access.refusal(req),
        authorized: () => auth === 'none' || auth.callerOf(authorizationOf(req)) !== undefined,
      });
    }
    // A command of this server never answers its approvals, signature or not (the peer check of every client).
    if (isApprovalCallbackPath(url.pathname)) return serveApprovalCallback(host, req, res, url.pathname, await refusalOf(req));
    if (url.pathname !== MCP_PATH) {
      const refusal = access.refusal(req);
      if (refusal) return reply(res, 403, refusal);
      if (answerOAuthPath(url.pathname, req, res, MCP_PATH)) return;
      return reply(res, 404, 'not found: the MCP endpoint is ' + MCP_PATH);
    }
    const refusal = access.refusal(req);
    if (refusal) return reply(res, 403, refusal);
    // Before anything else about the request is looked at: no session is created or found without a token.
    const caller = auth === 'none' ? DEFAULT_CALLER : auth.callerOf(authorizationOf(req));
    if (caller === undefined) {
      // Its body (if any) is never read: the connection ends with the answer.
      res.shouldKeepAlive = false;
      return refuseUnauthorized(req, res, MCP_PATH);
    }
    // A command of this server (or any) is never its client: it could approve its own escalation.
    const peerRefusal = await peers.refusal(req);
    if (peerRefusal) return reply(res, 403, peerRefusal);
    guard.authenticated(req);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') return serveSessionRequest(sessionDeps, req, res, sessionId, caller);
    if (req.method !== 'POST') return replyJsonRpc(res, 400, -32000, 'missing Mcp-Session-Id header');
    // A 2026-07-28 request may be as large as a session's; a session-opening one is far smaller.
    const text = await readBody(req, SESSION_BODY_BYTES);
    if (text === undefined) return replyJsonRpc(res, 400, PARSE_ERROR, 'request body is not valid JSON (or too large)');
    const checked = checkBody(text, undefined);
    if ('refusal' in checked) return refuse(res, checked.refusal);
    const body = checked.body;
    if (!(await isLegacyRequest(toWebRequest(req, res), body))) {
      if (draining) return refuseDraining(res, body);
      return modern.serve(req, res, body, caller, clientOf(req));
    }
    if (!isInitializeRequest(body)) return replyJsonRpc(res, 400, -32000, 'missing Mcp-Session-Id header: send initialize first', requestIdOf(body));
    if (Buffer.byteLength(text) > OPENING_BODY_BYTES) return replyJsonRpc(res, 400, PARSE_ERROR, 'request body is not valid JSON (or too large)');
    if (draining) return refuseDraining(res, body);
    return openSession(req, res, body, caller);
  };

  const server = createServer((req, res) => {
    observeHttpAnswer(host, req, res, clientOf(req), log);
    handle(req, res).catch((error: unknown) => {
      log?.error(`mcp http: ${messageOf(error)}`);
      if (!res.headersSent) replyJsonRpc(res, 500, -32603, 'internal server error');
      else res.end();
    });
  });
  const guard = guardConnections(server, { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, listenHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  if (host.isBound(ApprovalCallbacks)) host.get(ApprovalCallbacks).offerCallbacks();

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let closing: Promise<void> | undefined;
  return {
    url: `http://${isIP(listenHost) === 6 ? `[${listenHost}]` : listenHost}:${port}${MCP_PATH}`,
    closed,
    drain: (timeoutMs) => {
      draining = true;
      // Answers first (a cancelled call never gets one, so its stream alone proves nothing), then their streams end.
      const answered = async () => {
        await Promise.all([sessions.drainAnswers(), modern.whenIdle()]);
        await settlesWithin(sessions.whenNoRequestOpen(), FLUSH_MS);
      };
      const cancel = () => {
        sessions.cancelCalls();
        cancelled.abort(new Error('the server is shutting down'));
      };
      return drainWithin(timeoutMs, answered, cancel, log);
    },
    close: () => {
      closing ??= (async () => {
        const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        options.approvals?.roundTrips.close();
        await Promise.allSettled([sessions.closeAll(), handles.closeAll(), modern.close()]);
        // SSE streams are long-lived responses: cut them so the listener can close.
        server.closeAllConnections();
        await listenerClosed;
        markClosed();
      })();
      return closing;
    },
  };
}
