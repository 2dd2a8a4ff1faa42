import type { ApprovalService } from '../../providers/approval/approval-service.js';
import { askForApproval } from '../../providers/approval/approval-ask.js';
import { refusalMessage } from '../../providers/approval/approval-refusals.js';
import type { SandboxPolicy } from '../../providers/sandbox/sandbox-policy.js';
import type { ShellExecutor } from '../../providers/shell/shell-executor.js';
import type { SandboxMode } from '../../providers/sandbox/sandbox-mode.js';
import { ToolError, type CallContext } from '../../core/tool-contract.js';
import type { BashArgs } from './bash-args.js';

const RANK: Record<SandboxMode, number> = { 'read-only': 0, 'workspace-write': 1, 'danger-full-access': 2 };

export interface EscalationDeps {
  readonly executor: ShellExecutor;
  readonly approval?: ApprovalService;
  readonly policy?: SandboxPolicy;
  /** The directory the call runs in, shown to the approver. */
  readonly workdir?: string;
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
  const outcome = await askForApproval(deps.approval, {
    session: ctx.session,
    callId: ctx.callId,
    signal: ctx.signal,
    kind: 'escalation',
    tool: 'bash',
    command: args.command,
    workdir: deps.workdir,
    sandboxMode: current.mode,
    requestedMode: requested,
    justification: args.justification,
  });
  if (outcome.decision !== 'allowed-once') throw new ToolError(refusalMessage('escalation', outcome, deps.approval?.timeoutMs));
  return deps.policy?.resolve({ session: ctx.session, mode: requested }) ?? { mode: requested };
}
