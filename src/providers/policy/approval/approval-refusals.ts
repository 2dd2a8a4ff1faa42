import { NO_ANSWERER_FOR_KIND, type ApprovalKind, type ApprovalOutcome } from './approval-service.js';

/** How each kind of question opens a refusal that is not a person's or a policy's rejection. */
const NOT_APPROVED: Record<ApprovalKind, { readonly refused: string; readonly unavailable: string; readonly cancelled: string }> = {
  escalation: { refused: 'escalation rejected', unavailable: 'escalation unavailable', cancelled: 'escalation cancelled' },
  command: { refused: 'command not approved', unavailable: 'command not approved', cancelled: 'command approval cancelled' },
};

/** `300s`; seconds keep their fraction (`0.05s`) so a short test limit reads true. */
function noAnswerWithin(timeoutMs: number | undefined): string {
  return timeoutMs === undefined ? 'no answer in time' : `no answer within ${timeoutMs / 1000}s`;
}

/**
 * The model-visible reason (after `Error: `) for an approval that did not
 * allow the call: each outcome its own text, so the model (and the person
 * reading the transcript) can tell a user's no from a policy's, a timeout, a
 * broken approver, an approver with nothing to say and no approver at all.
 * `timeoutMs` is the service's limit, for the timeout text.
 */
export function refusalMessage(kind: ApprovalKind, outcome: ApprovalOutcome, timeoutMs?: number): string {
  const texts = NOT_APPROVED[kind];
  switch (outcome.decision) {
    case 'rejected': {
      const policy = outcome.answeredBy?.startsWith('policy:') ? outcome.answeredBy.slice('policy:'.length) : undefined;
      const person = policy === undefined ? personOf(outcome.answeredBy) : undefined;
      if (person !== undefined) return `${kind} rejected by operator "${person.by}" (${person.answerer})`;
      return `${kind} rejected by ${policy === undefined ? 'the user' : `policy ${policy}`}`;
    }
    case 'cancelled':
      return texts.cancelled;
    case 'timed-out':
      return `${texts.refused}: ${noAnswerWithin(timeoutMs)}`;
    case 'undecided':
      return `${texts.refused}: no approver gave a decision`;
    case 'needs-form':
      return `${texts.refused}: approval needs form input; this client offers only URL-mode elicitation`;
    case 'unavailable':
      if (outcome.answeredBy === NO_ANSWERER_FOR_KIND) return `${texts.unavailable}: no approval answerer takes ${kind} requests`;
      return `${texts.unavailable}: no approval answerer is configured`;
    default:
      // `failed`, and anything a custom ApprovalService returns that is not a decision.
      return `${texts.refused}: the approver failed`;
  }
}

/** `console:alice` (an answerer and the person who answered through it), else undefined. */
function personOf(answeredBy: string | undefined): { readonly answerer: string; readonly by: string } | undefined {
  const colon = answeredBy?.indexOf(':') ?? -1;
  if (answeredBy === undefined || colon <= 0) return undefined;
  return { answerer: answeredBy.slice(0, colon), by: answeredBy.slice(colon + 1) };
}
