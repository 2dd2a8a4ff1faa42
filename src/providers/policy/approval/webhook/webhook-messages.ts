import type { ApprovalRequest } from '../approval-service.js';

/** The `type` of what this server POSTs; an answer has another, so neither passes for the other. */
const REQUEST_TYPE = 'approval-request';
const ANSWER_TYPE = 'approval-answer';

/** Where a receiver POSTs a later answer, on the server's HTTP listener. */
export const CALLBACK_PREFIX = '/approvals/';

/** What a receiver may answer: a decision, or `pending` (in the response only: the decision follows by callback). */
type WebhookVerdict = 'allowed-once' | 'rejected' | 'pending';

const FIELDS = ['kind', 'tool', 'command', 'workdir', 'sandboxMode', 'requestedMode', 'justification', 'rule', 'callId', 'reason'] as const;

/** The JSON body POSTed to the webhook: every field of the request, none of its live objects. */
export function requestBody(id: string, request: ApprovalRequest, callback: boolean, nowMs: number): string {
  const fields: Record<string, unknown> = {};
  // The typed fields only: whatever else a requester attached stays here.
  for (const key of FIELDS) if (request[key] !== undefined) fields[key] = request[key];
  const session = request.session;
  return JSON.stringify({
    type: REQUEST_TYPE,
    id,
    sentAt: new Date(nowMs).toISOString(),
    callback: callback ? `${CALLBACK_PREFIX}${id}` : null,
    request: {
      ...fields,
      sessionId: session?.id ?? null,
      caller: session?.caller ?? null,
    },
  });
}

/**
 * The verdict an answer body carries for approval `id`, or the reason it is
 * not one: JSON `{ "type": "approval-answer", "id": <id>, "decision": … }`,
 * nothing else. `pending` only where `pendingAllowed`.
 */
export function verdictOf(body: string, id: string, pendingAllowed: boolean): WebhookVerdict | { problem: string } {
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    return { problem: 'the answer is not JSON' };
  }
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return { problem: 'the answer is not a JSON object' };
  const { type, id: answered, decision } = answer as Record<string, unknown>;
  if (type !== ANSWER_TYPE) return { problem: `the answer's type is not "${ANSWER_TYPE}"` };
  if (answered !== id) return { problem: 'the answer names another approval id' };
  if (decision === 'allowed-once' || decision === 'rejected') return decision;
  if (decision === 'pending' && pendingAllowed) return decision;
  return { problem: `the answer's decision must be ${pendingAllowed ? 'allowed-once, rejected or pending' : 'allowed-once or rejected'}` };
}
