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
import { countAdopted } from '../sessions/adopted-count.js';
import { toWebRequest, writeWebResponse } from '../transport/node-web.js';
import { replyJsonRpc } from '../transport/http-replies.js';
import { duplicateIdRefusal } from '../transport/request-ids.js';
import type { SessionSlot } from '../sessions/session-counter.js';
import type { SharedSessions } from '../sessions/shared-sessions.js';
import type { SessionRecord } from '../../providers/registry/session-registry.js';
import { messageOf } from '../../core/describe-value.js';

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
  /** With `--shared-sessions`: where each new session is recorded for the other replicas. */
  readonly shared?: SharedSessions;
}

/**
 * Opens a 2025-era session for `caller` with its initialize request `body`:
 * one MCP server and host session, behind a transport whose
 * `Mcp-Session-Id` is a random id of its own (never the host session's id,
 * which commands see as `DSH_SESSION_ID`). `slot` is its place in the
 * session count: the session keeps it, a failed initialize gives it back.
 * With shared sessions it is recorded once initialized, so any replica can
 * serve it (docs/shared-sessions.md).
 */
export async function openLegacySession(deps: LegacySessionDeps, req: IncomingMessage, res: ServerResponse, body: unknown, caller: string, slot: SessionSlot): Promise<void> {
  const id = randomUUID();
  const connection = legacyConnection(deps, caller, { cwd: deps.workspace });
  describeSessionClient(connection.session, { sessionId: id, ...addressOf(deps.peerOf?.(req)) });
  const shared = deps.shared;
  // Recorded before the initialize is answered: the client's next request may reach another replica at once.
  const record = shared && (() => shared.register(id, { era: 'legacy', caller, sessionId: connection.sessionId, cwd: connection.session.cwd ?? deps.workspace, client: clientOf(body) }));
  await serveLegacySession(deps, id, connection, caller, slot, (session) => forward(session, req, res, body), record);
}

/**
 * Serves on this replica the session `id` another replica opened (its
 * record: host session id, working directory, the client's initialize),
 * for `caller`, who opened it. The transport and server learn the
 * client's initialize as if they had answered it (replayed under a private
 * id, the answer dropped), so the session's next request finds them
 * initialized, with the client's capabilities (elicitation) and protocol
 * version. False when it could not be set up (`slot` is given back).
 */
export async function adoptLegacySession(deps: LegacySessionDeps, id: string, record: SessionRecord, caller: string, slot: SessionSlot): Promise<boolean> {
  const connection = legacyConnection(deps, caller, { sessionId: record.sessionId, cwd: record.cwd });
  await serveLegacySession(deps, id, connection, caller, slot, async ({ transport }) => {
    const initialize = { jsonrpc: '2.0', id: REPLAY_ID, method: 'initialize', params: initializeParams(record.client) };
    await (await transport.handleRequest(replayed(initialize), { parsedBody: initialize })).text();
    const version = connection.server.getNegotiatedProtocolVersion();
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    await (await transport.handleRequest(replayed(initialized, { 'mcp-session-id': id, ...(version ? { 'mcp-protocol-version': version } : {}) }), { parsedBody: initialized })).text();
  });
  const adopted = deps.sessions.has(id);
  if (adopted) {
    deps.logger?.info(`mcp http: session ${record.sessionId} served here from now on (opened on another replica)`);
    countAdopted(deps.host, 'legacy');
  }
  return adopted;
}

/** The id the replayed initialize of an adopted session goes under: no client's answer can be mixed up with it. */
const REPLAY_ID = 'dsh-tools:adopted-session-initialize';

function legacyConnection(deps: LegacySessionDeps, caller: string, where: { cwd: string; sessionId?: string }): McpConnection {
  return new McpConnection(deps.host, {
    ...where,
    logger: deps.logger,
    approvals: deps.approvals,
    ...(deps.identified ? { caller } : {}),
    ...(deps.callGate ? { callGate: deps.callGate } : {}),
  });
}

/**
 * Puts `connection` behind a transport with `Mcp-Session-Id` `id` and lets
 * `initialize` run its initialize through it; the session joins the table
 * (then `record` runs) once the transport is initialized, and is dropped
 * again when that never happened.
 */
async function serveLegacySession(
  deps: LegacySessionDeps,
  id: string,
  connection: McpConnection,
  caller: string,
  slot: SessionSlot,
  initialize: (session: OpenSession) => Promise<void>,
  record?: () => Promise<void>,
): Promise<void> {
  const eventStore = deps.eventStore?.();
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    onsessioninitialized: async (): Promise<void> => {
      deps.sessions.add(id, transport, connection, caller, answers, slot);
      // Not recorded: this replica still serves it, the others answer as for an unknown id.
      await record?.().catch((error: unknown) => deps.logger?.error(`mcp http: session ${connection.sessionId} was not recorded in the session registry: ${messageOf(error)}`));
    },
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
    await initialize({ transport, connection });
  } finally {
    // An initialize that failed (validation or a throw) never registers: drop its session now.
    if (!deps.sessions.has(id)) {
      slot.free();
      eventStore?.dispose?.();
      await connection.close();
    }
  }
}

/** What another replica needs of a client's initialize to answer as if it had seen it. */
function clientOf(body: unknown): Record<string, unknown> {
  const params = (body as { params?: Record<string, unknown> }).params ?? {};
  return { protocolVersion: params.protocolVersion, capabilities: params.capabilities, clientInfo: params.clientInfo };
}

/** The recorded client's initialize params, filled where a record lacks a part (the SDK checks their shape). */
function initializeParams(client: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  const info = client?.clientInfo;
  return {
    protocolVersion: typeof client?.protocolVersion === 'string' ? client.protocolVersion : '',
    capabilities: isObject(client?.capabilities) ? client.capabilities : {},
    clientInfo: isObject(info) && typeof info.name === 'string' && typeof info.version === 'string' ? info : { name: 'unknown', version: '0' },
  };
}

/** A request this server hands its own transport (a replayed initialize): the headers a client sends. */
function replayed(message: unknown, headers: Record<string, string> = {}): Request {
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
  });
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
export async function forward(session: OpenSession, req: IncomingMessage, res: ServerResponse, body?: unknown, beforeAnswer?: () => Promise<void>): Promise<void> {
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
  await beforeAnswer?.();
  await writeWebResponse(response, res);
}

/**
 * A client's DELETE of a shared session ends it on every replica: its record
 * first (no replica adopts it any more), then the session here, then its
 * sandbox everywhere; the client hears the answer once all that is done.
 */
export async function closeShared(session: OpenSession, req: IncomingMessage, res: ServerResponse, id: string, shared: SharedSessions): Promise<void> {
  const removed = await shared.remove(id);
  await forward(session, req, res, undefined, async () => {
    await session.connection.close();
    // Only the replica that took the record ends the sandbox (a reaper that claimed it first ends it itself).
    if (removed) await shared.endEverywhere(session.connection.sessionId);
  });
}

/** The ids of the requests (not notifications or responses) in a body. */
function requestIdsOf(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  return messages.flatMap((message) =>
    message !== null && typeof message === 'object' && 'method' in message && 'id' in message ? [(message as { id: RequestId }).id] : [],
  );
}
