import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DshHost } from '../../container/dsh-host.js';
import { ApprovalCallbacks } from '../../providers/policy/approval/webhook/webhook-answerer.js';
import { CALLBACK_PREFIX } from '../../providers/policy/approval/webhook/webhook-messages.js';
import { SIGNATURE_HEADER } from '../../providers/policy/approval/webhook/webhook-signature.js';
import { readBody } from '../transport/http-body.js';
import { reply } from '../transport/http-replies.js';

/** A callback is one small JSON answer; anything larger is refused (413). */
const CALLBACK_BODY_BYTES = 64 * 1024;

/** Whether `pathname` is an approval callback's (`/approvals/<id>`). */
export function isApprovalCallbackPath(pathname: string): boolean {
  return pathname.startsWith(CALLBACK_PREFIX);
}

/**
 * `POST /approvals/<id>`: the approval webhook's later answer
 * (docs/operations.md, "Approval webhook"). Not behind the bearer token —
 * the receiver proves itself with the webhook secret's signature, checked
 * before anything about the id is told. Behind the Host/Origin check like
 * every path but the probes, and the peer check: a command of this server
 * is refused whatever it signs. Without a webhook configured: 404.
 */
export async function serveApprovalCallback(host: DshHost, req: IncomingMessage, res: ServerResponse, pathname: string, refusal: string | undefined): Promise<void> {
  if (refusal !== undefined) return reply(res, 403, refusal);
  if (!host.isBound(ApprovalCallbacks)) return reply(res, 404, 'not found: this server has no approval webhook (approval.webhook)');
  const id = pathname.slice(CALLBACK_PREFIX.length);
  if (id === '' || id.includes('/')) return reply(res, 404, `not found: an approval answer goes to ${CALLBACK_PREFIX}<id>`);
  if (req.method !== 'POST') {
    res.shouldKeepAlive = false;
    return reply(res, 405, `method not allowed: ${CALLBACK_PREFIX}<id> answers POST`, { allow: 'POST' });
  }
  // Anyone may reach this path: a declared oversize body is not read at all, and the connection ends with the answer.
  if (Number(req.headers['content-length']) > CALLBACK_BODY_BYTES) {
    res.shouldKeepAlive = false;
    return reply(res, 413, `approval answer refused: body over ${CALLBACK_BODY_BYTES} bytes`);
  }
  const body = await readBody(req, CALLBACK_BODY_BYTES);
  if (body === undefined) return reply(res, 413, `approval answer refused: body over ${CALLBACK_BODY_BYTES} bytes`);
  const answer = host.get(ApprovalCallbacks).receive(id, req.headers[SIGNATURE_HEADER], body);
  return reply(res, answer.status, answer.text);
}
