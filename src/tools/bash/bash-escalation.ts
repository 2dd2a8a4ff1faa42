import type { ApprovalService } from '../../providers/approval/approval-service.js';
import type { SandboxPolicy } from '../../providers/sandbox/sandbox-policy.js';
import type { SandboxMode, ShellExecutor } from '../../providers/shell/shell-executor.js';
import { ToolError, type CallContext } from '../../core/tool-contract.js';
import type { BashArgs } from './bash-args.js';

const RANK: Record<SandboxMode, number> = { 'read-only': 0, 'workspace-write': 1, 'danger-full-access': 2 };

const DECLINED: Record<string, string> = {
  rejected: 'escalation rejected by the user',
  cancelled: 'escalation cancelled',
  unavailable: 'escalation unavailable: no approval answerer is configured',
};

/** `no answer within 300s`; seconds keep their fraction (`0.05s`) so a short test limit reads true. */
function timedOutMessage(timeoutMs: number | undefined): string {
  return timeoutMs === undefined ? 'escalation rejected: no answer in time' : `escalation rejected: no answer within ${timeoutMs / 1000}s`;
}

export interface EscalationDeps {
  readonly executor: ShellExecutor;
  readonly approval?: ApprovalService;
  readonly policy?: SandboxPolicy;
}

/**
 * Checks the escalation fields and, when a wider mode is requested, asks the
 * user before anything runs. Returns the sandbox mode this call runs under
 * (undefined for a non-sandboxing executor). Throws `ToolError` otherwise.
 */
export async function resolveCallSandbox(
  args: BashArgs,
  ctx: CallContext,
  deps: EscalationDeps,
): Promise<{ mode: SandboxMode; workspaceRoot?: string } | undefined> {
  const requested = args.sandbox_permissions;
  if (args.justification !== undefined && requested === undefined) {
    throw new ToolError('invalid escalation: justification is only valid together with sandbox_permissions');
  }
  if (requested !== undefined && args.justification === undefined) {
    throw new ToolError('invalid escalation: sandbox_permissions requires a justification');
  }
  const defaultMode = deps.executor.sandboxMode;
  if (defaultMode === undefined) {
    if (requested !== undefined) {
      if (deps.executor.escalationRefusal) throw new ToolError(deps.executor.escalationRefusal);
      throw new ToolError('sandbox_permissions is not available in this composition (no sandboxing executor to escalate)');
    }
    return undefined;
  }
  const current = deps.policy?.resolve({ session: ctx.session }) ?? { mode: defaultMode };
  if (requested === undefined) return current;
  if (RANK[requested] <= RANK[current.mode]) {
    throw new ToolError(`sandbox escalation to "${requested}" is not strictly wider than this call's current "${current.mode}" mode`);
  }
  const decision = deps.approval
    ? await deps.approval.request({
        session: ctx.session,
        tool: 'bash',
        reason: `run \`${args.command}\` under ${requested}: ${args.justification}`,
        callId: ctx.callId,
        signal: ctx.signal,
      })
    : 'unavailable';
  if (decision === 'timed-out') throw new ToolError(timedOutMessage(deps.approval?.timeoutMs));
  if (decision !== 'allowed-once') throw new ToolError(DECLINED[decision] ?? DECLINED.unavailable!);
  return deps.policy?.resolve({ session: ctx.session, mode: requested }) ?? { mode: requested };
}
