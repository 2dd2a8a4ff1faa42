import type { ApprovalAnswerer } from './approval-service.js';

/** The webhook answerer's name (`WEBHOOK_ANSWERER`), asked after every other one unless `approval.answerers` says otherwise. */
const WEBHOOK = 'webhook';

/**
 * The answerers a request is put to, in order (docs/security/approvals.md,
 * "The answerer chain"). With `order` (`approval.answerers`): exactly the
 * bound answerers it names, in its order — one it does not name is never
 * asked, a name with nothing bound is skipped. Without: every bound
 * answerer in binding order, the webhook last, so a client that can show a
 * form is asked before the operator's webhook.
 */
export function answererChain(bound: readonly ApprovalAnswerer[], order: readonly string[] | undefined): readonly ApprovalAnswerer[] {
  const nameOf = (answerer: ApprovalAnswerer): unknown => answerer?.name;
  if (order === undefined) return [...bound.filter((a) => nameOf(a) !== WEBHOOK), ...bound.filter((a) => nameOf(a) === WEBHOOK)];
  return order.flatMap((name) => bound.filter((a) => nameOf(a) === name));
}
