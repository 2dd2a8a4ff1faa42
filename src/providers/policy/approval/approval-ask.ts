import type { ApprovalAsk, ApprovalOutcome, ApprovalService } from './approval-service.js';
import { describeApproval } from './approval-text.js';

/**
 * The one way a requester asks: with the typed fields and their text form
 * (`describeApproval`, so a custom `ApprovalService` that shows `reason` shows
 * the safe text too), for the outcome with who decided when the service can
 * tell it. No service at all is `unavailable`.
 */
export async function askForApproval(approval: ApprovalService | undefined, ask: Omit<ApprovalAsk, 'reason'>): Promise<ApprovalOutcome> {
  if (!approval) return { decision: 'unavailable' };
  const request = { ...ask, reason: describeApproval(ask) };
  if (approval.requestOutcome) return approval.requestOutcome(request);
  return { decision: await approval.request(request) };
}
