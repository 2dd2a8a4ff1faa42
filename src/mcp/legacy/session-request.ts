import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeSessionClient } from '../../providers/observability/session-client.js';
import { addressOf } from '../access/http-peer.js';
import type { SharedSessions } from '../sessions/shared-sessions.js';
import { carriesRequest, replyJsonRpc } from '../transport/http-replies.js';
import { checkBody, readBody } from '../transport/http-body.js';
import type { Adoption } from './adopt-legacy.js';
import { closeShared, forward } from './http-legacy.js';
import { sessionNotFound, type HttpSessionTable, type OpenSession } from './http-sessions.js';

/** Any POST body larger than this gets 413 (400 without a session id). */
export const SESSION_BODY_BYTES = 4 * 1024 * 1024;

/** What a request naming a session needs of the server. */
export interface SessionRequestDeps {
  readonly sessions: HttpSessionTable;
  /** With `--shared-sessions`: a session held here is marked used on each request, one ended elsewhere let go. */
  readonly shared?: SharedSessions;
  /** With `--shared-sessions`: serves a session another replica opened (adopt-legacy.ts). */
  readonly adopt?: (id: string, caller: string) => Promise<Adoption>;
  readonly draining: () => boolean;
  readonly peerOf: (req: IncomingMessage) => string | undefined;
  /** The 503 of a draining server, with its Retry-After. */
  readonly refuseDraining: (res: ServerResponse, body?: unknown) => void;
}

/**
 * A request with an `Mcp-Session-Id` of `caller`: to its session (held here,
 * or adopted from the registry), or 404 when there is none for `caller`.
 */
export async function serveSessionRequest(deps: SessionRequestDeps, req: IncomingMessage, res: ServerResponse, sessionId: string, caller: string): Promise<void> {
  const { sessions, shared } = deps;
  const notFound = () => replyJsonRpc(res, 404, -32001, sessionNotFound(sessions, sessionId, caller));
  const found = await sessionOf(deps, req, res, sessionId, caller);
  if (found === 'draining') return deps.refuseDraining(res);
  if (found === 'server' || found === 'caller') return replyJsonRpc(res, 503, -32000, sessions.tooMany(found, caller));
  if (!found) return notFound();
  const session = found;
  // Marked used while the request is read; a session whose record is gone ended on another replica: let go of here too.
  // Without a registry nothing is awaited here: the request goes on as before shared sessions.
  const touched = shared?.touch(sessionId);
  const endedElsewhere = async (touching: Promise<boolean>) => {
    const ended = !(await touching);
    if (ended) sessions.letGo(sessionId);
    return ended;
  };
  describeSessionClient(session.connection.session, { sessionId, ...addressOf(deps.peerOf(req)) });
  if (req.method !== 'POST') {
    if (touched && (await endedElsewhere(touched))) return notFound();
    if (req.method === 'DELETE' && shared) return closeShared(session, req, res, sessionId, shared);
    return forward(session, req, res);
  }
  const text = await readBody(req, SESSION_BODY_BYTES);
  if (touched && (await endedElsewhere(touched))) return notFound();
  if (text === undefined) return replyJsonRpc(res, 413, -32600, `request body too large: at most ${SESSION_BODY_BYTES} bytes`);
  const checked = checkBody(text, session.connection.server.getNegotiatedProtocolVersion());
  if ('refusal' in checked) return replyJsonRpc(res, 400, checked.refusal.error.code, checked.refusal.error.message, checked.refusal.id);
  // While draining, answers and notifications still pass (an approval for a running call); new requests do not.
  if (deps.draining() && carriesRequest(checked.body)) return deps.refuseDraining(res, checked.body);
  return forward(session, req, res, checked.body);
}

/** The request's session held here; else, with shared sessions, the one adopted from the registry (or why not now). */
async function sessionOf(deps: SessionRequestDeps, req: IncomingMessage, res: ServerResponse, id: string, caller: string): Promise<OpenSession | Exclude<Adoption, 'adopted'>> {
  const held = deps.sessions.begin(id, req.method, res, caller);
  if (held || !deps.adopt) return held;
  // Opened on another replica, perhaps: served here from its record.
  const adoption = await deps.adopt(id, caller);
  return adoption === 'adopted' ? deps.sessions.begin(id, req.method, res, caller) : adoption;
}
