import { WebStandardStreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DshHost } from '../container/dsh-host.js';
import type { Logger } from '../providers/logging/logger.js';
import type { CallGate } from './call-gate.js';
import { DrainingTransport } from './draining-transport.js';
import type { McpElicitationAnswerer } from './elicitation-answerer.js';
import type { HttpSessionTable, OpenSession } from './http-sessions.js';
import { describeSessionClient } from '../providers/observability/session-client.js';
import { addressOf } from './http-peer.js';
import { McpConnection } from './mcp-connection.js';
import { toWebRequest, writeWebResponse } from './node-web.js';
import type { SessionSlot } from './session-counter.js';

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
  /** Keeps each session's SSE events for `Last-Event-ID` replay (undefined: no replay). */
  readonly eventStore?: () => EventStore;
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
  describeSessionClient(connection.session, { sessionId: id, ...addressOf(deps.peerOf?.(req)) });
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    onsessioninitialized: (): void => deps.sessions.add(id, transport, connection, caller, answers, slot),
    ...(deps.eventStore ? { eventStore: deps.eventStore() } : {}),
  });
  const answers = new DrainingTransport(transport);
  const previousOnClose = connection.server.onclose;
  connection.server.onclose = () => {
    previousOnClose?.();
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
      await connection.close();
    }
  }
}

/** Hands one request (its body already read and checked, or none) to a session's transport and writes the answer. */
export async function forward(session: OpenSession, req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
  const request = toWebRequest(req, res, body === undefined ? undefined : JSON.stringify(body));
  const response = await session.transport.handleRequest(request, body === undefined ? {} : { parsedBody: body });
  await writeWebResponse(response, res);
}
