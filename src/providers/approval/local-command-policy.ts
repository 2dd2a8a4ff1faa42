import { inject, injectable, optional } from 'inversify';
import { ApprovalConfig, resolveApprovalConfig } from './approval-config.js';
import { ApprovalService, type ApprovalOutcome } from './approval-service.js';
import type { CommandCheck, CommandPolicy, CommandVerdict } from './command-policy.js';
import { judgeCommand } from './command-rules.js';

const ASK_REFUSED: Record<string, string> = {
  cancelled: 'command approval cancelled',
  unavailable: 'command not approved: no approval answerer is configured',
};

/**
 * The default command policy: the configured `approval.rules` over each
 * simple command of the line (first match wins, the strictest part decides),
 * `approval.defaultAction` for the rest. `ask` goes to the approval service
 * with the structured facts; without one, or without an answer, it fails
 * closed.
 */
@injectable()
export class LocalCommandPolicy implements CommandPolicy {
  private readonly config: ApprovalConfig;

  constructor(
    @inject(ApprovalConfig) @optional() config?: Partial<ApprovalConfig>,
    @inject(ApprovalService) @optional() private readonly approval?: ApprovalService,
  ) {
    this.config = resolveApprovalConfig(config);
  }

  async check(request: CommandCheck): Promise<CommandVerdict> {
    const outcome = await judgeCommand(request.command, this.config.rules, this.config.defaultAction);
    if (outcome.action === 'allow') return { allowed: true };
    if (outcome.action === 'deny') return { allowed: false, message: `command denied by policy: ${outcome.rule}` };
    const answer = await this.ask(request, outcome.rule);
    if (answer.decision === 'allowed-once') return { allowed: true };
    if (answer.decision === 'rejected') {
      const policy = answer.answeredBy?.startsWith('policy:') ? answer.answeredBy.slice('policy:'.length) : undefined;
      return { allowed: false, message: policy ? `command rejected by policy ${policy}` : 'command rejected by the user' };
    }
    return { allowed: false, message: ASK_REFUSED[answer.decision] ?? ASK_REFUSED.unavailable! };
  }

  private async ask(request: CommandCheck, rule: string): Promise<ApprovalOutcome> {
    if (!this.approval) return { decision: 'unavailable' };
    const approvalRequest = {
      session: request.session,
      tool: request.tool,
      kind: 'command' as const,
      command: request.command,
      workdir: request.workdir,
      sandboxMode: request.sandboxMode,
      rule,
      reason: `run \`${request.command}\`${request.workdir ? ` in ${request.workdir}` : ''} (rule: ${rule})`,
      callId: request.callId,
      signal: request.signal,
    };
    if (this.approval.requestOutcome) return this.approval.requestOutcome(approvalRequest);
    return { decision: await this.approval.request(approvalRequest) };
  }
}
