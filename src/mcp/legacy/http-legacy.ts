import { WebStandardStreamableHTTPServerTransport, type EventStore, type RequestId } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DshHost } from '../../container/dsh-host.js';
import type { Logger } from '../../providers/logging/logger.js';
import type { CallGate } from '../calls/call-gate.js';
import { DrainingTransport } from '../transport/draining-transport.js';
import type { McpElicitationAnswerer } from '../approvals/elicitation-answerer.js';
import type { HttpSessionTable, OpenSession } from './http-sessions.js';
import { describeSessionClient } from '../../providers/observability/session-client.js';
import { addressOf } from '../access/http-peer.js';
import { McpConnection } from './mcp-connection.js';
import { toWebRequest, writeWebResponse } from '../transport/node-web.js';
import { replyJsonRpc } from '../transport/http-replies.js';
import { duplicateIdRefusal } from '../transport/request-ids.js';
import type { SessionSlot } from '../sessions/session-counter.js';

/** What a 2025-era session needs from the server's options. */
export interface LegacySessionDeps {
  readonly host: DshHost;
  readonly workspace: string;
  readonly sessions: HttpSessionTable;
  readonly logger?: Logger;
  readonly approvals?: McpElicitationAnswerer;
  readonly callGate?: CallGate;
  /** Under --no-auth nobody is identified: sessions record no caller. */
  readonly identified: boolean;
  /** The client's address of a request (`--trusted-proxy` applied): audit records carry it. */
  readonly peerOf?: (req: IncomingMessage) => string | undefined;
  /** Keeps each session's SSE events for `Last-Event-ID` replay (undefined: no replay); `dispose` runs when the session closes. */
  readonly eventStore?: () => EventStore & { dispose?(): void };
}

/**
 * Opens a 2025-era session for `caller` with its initialize request `body`:
 * one MCP server and host session, behind a transport whose
 * `Mcp-Session-Id` is a random id of its own (never the host session's id,
 * which commands see as `DSH_SESSION_ID`). `slot` is its place in the
 * session count: the session keeps it, a failed initialize gives it back.
 */
export async function openLegacySession(deps: LegacySessionDeps, req: IncomingMessage, res: ServerResponse, body: unknown, caller: string, slot: SessionSlot): Promise<void> {
  const id = randomUUID();
  const connection = new McpConnection(deps.host, {
    cwd: deps.workspace,
    logger: deps.logger,
    approvals: deps.approvals,
    ...(deps.identified ? { caller } : {}),
    ...(deps.callGate ? { callGate: deps.callGate } : {}),
  });
  const eventStore = deps.eventStore?.();
  describeSessionClient(connection.session, { sessionId: id, ...addressOf(deps.peerOf?.(req)) });
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    onsessioninitialized: (): void => deps.sessions.add(id, transport, connection, caller, answers, slot),
    ...(eventStore ? { eventStore } : {}),
  });
  const answers = new DrainingTransport(transport);
  answersOf.set(transport, answers);
  const previousOnClose = connection.server.onclose;
  connection.server.onclose = () => {
    previousOnClose?.();
    eventStore?.dispose?.();
    // Reported once the host session is gone, so "closed" means its tasks and shell are too.
    void connection.close().then(() => deps.sessions.closed(id));
  };
  try {
    await connection.connect(answers);
    await forward({ transport, connection }, req, res, body);
  } finally {
    // An initialize that failed (validation or a throw) never registers: drop its session now.
    if (!deps.sessions.has(id)) {
      slot.free();
      eventStore?.dispose?.();
      await connection.close();
    }
  }
}

/** Each session transport's answer ledger: which of its requests are still unanswered. */
const answersOf = new WeakMap<object, DrainingTransport>();
/** Request ids of each transport between their check here and their delivery to the SDK. */
const arrivingOf = new WeakMap<object, Set<RequestId>>();

/**
 * Hands one request (its body already read and checked, or none) to a
 * session's transport and writes the answer. A request reusing the id of one
 * still in flight on the session is refused at once with -32600 (the SDK
 * would route the first one's answer to the second's stream and leave the
 * first unanswered; docs/mcp-server.md).
 */
export async function forward(session: OpenSession, req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
  const ids = requestIdsOf(body);
  const arriving = arrivingOf.get(session.transport) ?? new Set<RequestId>();
  arrivingOf.set(session.transport, arriving);
  const answers = answersOf.get(session.transport);
  const taken = new Set<RequestId>();
  const duplicate = ids.find((id) => {
    if (taken.has(id) || arriving.has(id) || answers?.awaits(id)) return true;
    taken.add(id);
    return false;
  });
  if (duplicate !== undefined) {
    const refusal = duplicateIdRefusal(duplicate);
    return replyJsonRpc(res, 400, refusal.error.code, refusal.error.message, refusal.id);
  }
  for (const id of ids) arriving.add(id);
  let response: Response;
  try {
    const request = toWebRequest(req, res, body === undefined ? undefined : JSON.stringify(body));
    response = await session.transport.handleRequest(request, body === undefined ? {} : { parsedBody: body });
  } finally {
    // Delivered by now (the answer ledger has them), or refused by the transport: either way no longer arriving.
    for (const id of ids) arriving.delete(id);
  }
  await writeWebResponse(response, res);
}

/** The ids of the requests (not notifications or responses) in a body. */
function requestIdsOf(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  return messages.flatMap((message) =>
    message !== null && typeof message === 'object' && 'method' in message && 'id' in message ? [(message as { id: RequestId }).id] : [],
  );
}
