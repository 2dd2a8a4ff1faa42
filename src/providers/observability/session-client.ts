/**
 * What the transport knows of the client behind a host session: the session
 * id the client and its proxy log (HTTP `Mcp-Session-Id`, or a 2026-07-28
 * session handle) and its address. Kept beside the session, not on it: the
 * host session is transport-agnostic, and commands never see either value.
 * Audit records carry both, so a record can be joined with the proxy's log.
 */
export interface SessionClient {
  /** `Mcp-Session-Id`, or the 2026-07-28 session handle. */
  readonly sessionId?: string;
  /** The peer address (the `X-Forwarded-For` client when the peer is a trusted proxy). */
  readonly address?: string;
}

const clients = new WeakMap<object, SessionClient>();

/** Records (or updates: the last request's address wins) what the transport knows of `session`'s client. */
export function describeSessionClient(session: object, client: SessionClient): void {
  const known = clients.get(session);
  clients.set(session, { ...known, ...dropUndefined(client) });
}

export function sessionClientOf(session: object | undefined): SessionClient | undefined {
  return session === undefined ? undefined : clients.get(session);
}

function dropUndefined(client: SessionClient): SessionClient {
  return {
    ...(client.sessionId !== undefined ? { sessionId: client.sessionId } : {}),
    ...(client.address !== undefined ? { address: client.address } : {}),
  };
}
