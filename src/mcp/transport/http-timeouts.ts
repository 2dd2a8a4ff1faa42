import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_MAX_UNAUTHENTICATED, UnauthenticatedConnections } from './connection-cap.js';

/** How long the MCP listener waits for a client (docs/operations.md, Limits; `serve --http-*-timeout`). */
export interface HttpConnectionLimits {
  /** A request head (request line and headers) must be complete this long after the connection opened. */
  readonly headersTimeoutMs: number;
  /** A request body must be complete this long after its head arrived (answered or not). */
  readonly bodyTimeoutMs: number;
  /** A kept-alive connection with no request in flight is closed after this long. */
  readonly idleTimeoutMs: number;
  /** Connections that have not sent an authenticated request, at most (the oldest is closed past it). */
  readonly maxUnauthenticated: number;
}

export const DEFAULT_CONNECTION_LIMITS: HttpConnectionLimits = {
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  idleTimeoutMs: 15_000,
  maxUnauthenticated: DEFAULT_MAX_UNAUTHENTICATED,
};

/** What the request handler tells the guard. */
interface ConnectionGuard {
  /** `req` carried a token the server accepts: its connection leaves the unauthenticated count. */
  authenticated(req: IncomingMessage): void;
}

/**
 * Puts deadlines on every connection of `server` and caps the ones without
 * a token. Our own timers, besides node's `headersTimeout`/`requestTimeout`
 * (whose periodic check may run 30 s late): a head trickled byte by byte, a
 * body trickled after its answer (a 401 does not read it), or a connection
 * left open between requests is closed at its deadline. A response streaming
 * for a long call is never cut: no deadline runs while a request is answered.
 */
export function guardConnections(server: Server, limits: HttpConnectionLimits): ConnectionGuard {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.headersTimeoutMs + limits.bodyTimeoutMs;
  server.keepAliveTimeout = limits.idleTimeoutMs;
  const unauthenticated = new UnauthenticatedConnections(limits.maxUnauthenticated);
  const deadlines = new WeakMap<Socket, NodeJS.Timeout>();
  const arm = (socket: Socket, ms: number, unless?: () => boolean) => {
    clearTimeout(deadlines.get(socket));
    if (socket.destroyed || ms <= 0) return;
    deadlines.set(socket, setTimeout(() => (unless?.() ? undefined : socket.destroy()), ms).unref());
  };
  server.on('connection', (socket: Socket) => {
    socket.once('close', () => clearTimeout(deadlines.get(socket)));
    unauthenticated.opened(socket);
    arm(socket, limits.headersTimeoutMs);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // Until the body is in; the answer itself may take as long as its call.
    arm(req.socket, limits.bodyTimeoutMs, () => req.complete);
    res.once('finish', () => {
      if (!req.complete) return;
      arm(req.socket, limits.idleTimeoutMs);
    });
  });
  return { authenticated: (req) => unauthenticated.authenticated(req.socket) };
}
