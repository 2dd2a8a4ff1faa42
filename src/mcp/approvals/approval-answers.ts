import type { ClientCapabilities, ElicitRequestFormParams } from '@modelcontextprotocol/server';
import type { ApprovalDecision, ApprovalRequest } from '../../providers/policy/approval/approval-service.js';
import { approvalFacts } from '../../providers/policy/approval/approval-text.js';

/** What a client can answer an approval with: a form, only a URL, or nothing. */
export type FormSupport = 'form' | 'url-only' | 'none';

/**
 * Reads a client's declared elicitation: `form` (or an empty object, which
 * the spec reads as form mode) can answer an approval; `url` alone cannot,
 * since the facts must be shown and confirmed in the client itself.
 */
export function formSupportOf(capabilities: ClientCapabilities | undefined): FormSupport {
  const elicitation: unknown = capabilities?.elicitation;
  if (elicitation === null || typeof elicitation !== 'object') return 'none';
  const declared = elicitation as { form?: unknown; url?: unknown };
  if (declared.form !== undefined && declared.form !== null) return 'form';
  return declared.url !== undefined && declared.url !== null ? 'url-only' : 'form';
}

/**
 * The decision an `input_required` answer (one bare elicitation result)
 * carries for `request`. Only an `accept` whose content, when given, repeats
 * the shown facts exactly allows the call; `decline` rejects, `cancel`
 * cancels; anything else (missing, another kind of result, an edited or
 * extra field) is `failed`, so nothing runs on an answer nobody gave.
 */
export function decisionOfAnswer(answer: unknown, request: ApprovalRequest): ApprovalDecision {
  if (answer === null || typeof answer !== 'object') return 'failed';
  const { action, content } = answer as { action?: unknown; content?: unknown };
  if (action === 'decline') return 'rejected';
  if (action === 'cancel') return 'cancelled';
  if (action !== 'accept') return 'failed';
  return content === undefined || contentMatches(content, request) ? 'allowed-once' : 'failed';
}

function contentMatches(content: unknown, request: ApprovalRequest): boolean {
  if (content === null || typeof content !== 'object' || Array.isArray(content)) return false;
  const shown = new Map(approvalFacts(request).map((fact) => [fact.name, fact.value]));
  return Object.entries(content).every(([name, value]) => shown.has(name) && shown.get(name) === value);
}

/** Each fact as a read-only field: one choice, pre-selected, titled with its escaped value. */
export function approvalSchema(request: ApprovalRequest): ElicitRequestFormParams['requestedSchema'] {
  const properties: ElicitRequestFormParams['requestedSchema']['properties'] = {};
  for (const fact of approvalFacts(request)) {
    properties[fact.name] = {
      type: 'string',
      title: fact.title,
      description: fact.description,
      oneOf: [{ const: fact.value, title: fact.value }],
      default: fact.value,
    };
  }
  return { type: 'object', properties };
}
