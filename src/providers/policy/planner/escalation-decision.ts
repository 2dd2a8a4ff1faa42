import { askForApproval } from '../approval/approval-ask.js';
import { refusalMessage } from '../approval/approval-refusals.js';
import type { ApprovalService } from '../approval/approval-service.js';
import type { SandboxMode } from '../../../core/sandbox-mode.js';
import { ToolError, type CallContext } from '../../../core/tool-contract.js';
import type { CallRequest } from './call-planner.js';

const RANK: Record<SandboxMode, number> = { 'read-only': 0, 'workspace-write': 1, 'danger-full-access': 2 };

/** Throws unless the escalation fields come both or neither. */
export function checkEscalationFields(escalation: CallRequest['escalation']): SandboxMode | undefined {
  const requested = escalation?.mode;
  if (escalation?.justification !== undefined && requested === undefined) {
    throw new ToolError('invalid escalation: justification is only valid together with sandbox_permissions');
  }
  if (requested !== undefined && escalation?.justification === undefined) {
    throw new ToolError('invalid escalation: sandbox_permissions requires a justification');
  }
  return requested;
}

/** The refusal of an escalation in a composition without a sandbox to widen. */
export function noSandboxToEscalate(refusal: string | undefined): ToolError {
  return new ToolError(refusal ?? 'sandbox_permissions is not available in this composition (no sandboxing executor to escalate)');
}

/**
 * The mode an escalated call runs under: `requested`, when it is strictly
 * wider than `current` and the approver allowed it once. Throws otherwise.
 */
export async function approvedEscalation(
  call: CallRequest,
  ctx: CallContext,
  facts: { readonly current: SandboxMode; readonly requested: SandboxMode; readonly workdir?: string; readonly approval?: ApprovalService },
): Promise<SandboxMode> {
  const { current, requested, approval } = facts;
  if (RANK[requested] <= RANK[current]) {
    throw new ToolError(`sandbox escalation to "${requested}" is not strictly wider than this call's current "${current}" mode`);
  }
  const outcome = await askForApproval(approval, {
    session: ctx.session,
    callId: ctx.callId,
    signal: ctx.signal,
    kind: 'escalation',
    tool: call.tool,
    command: call.command,
    workdir: facts.workdir,
    sandboxMode: current,
    requestedMode: requested,
    justification: call.escalation?.justification,
  });
  if (outcome.decision !== 'allowed-once') throw new ToolError(refusalMessage('escalation', outcome, approval?.timeoutMs));
  return requested;
}
