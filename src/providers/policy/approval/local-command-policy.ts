import { inject, injectable, optional } from 'inversify';
import { ApprovalConfig, resolveApprovalConfig } from './approval-config.js';
import { askForApproval } from './approval-ask.js';
import { refusalMessage } from './approval-refusals.js';
import { ApprovalService, type ApprovalOutcome } from './approval-service.js';
import type { CommandCheck, CommandPolicy, CommandVerdict } from './command-policy.js';
import { judgeCommand } from './command-rules.js';
import { loadBashParser } from './bash-grammar.js';

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

  /**
   * Loads the bash parser when rules are configured (≈1 s of WebAssembly the
   * first checked call would otherwise wait for); `createHost` awaits it. A
   * load that fails is retried, and reported, by the first check.
   */
  async warmUp(): Promise<void> {
    if (this.config.rules.length === 0) return;
    await loadBashParser().catch(() => undefined);
  }

  async check(request: CommandCheck): Promise<CommandVerdict> {
    const outcome = await judgeCommand(request.command, this.config.rules, this.config.defaultAction);
    if (outcome.action === 'allow') return { allowed: true };
    if (outcome.action === 'deny') return { allowed: false, message: `command denied by policy: ${outcome.rule}` };
    const answer = await this.ask(request, outcome.rule);
    if (answer.decision === 'allowed-once') return { allowed: true };
    return { allowed: false, message: refusalMessage('command', answer, this.approval?.timeoutMs) };
  }

  private ask(request: CommandCheck, rule: string): Promise<ApprovalOutcome> {
    return askForApproval(this.approval, {
      session: request.session,
      tool: request.tool,
      kind: 'command' as const,
      command: request.command,
      workdir: request.workdir,
      sandboxMode: request.sandboxMode,
      rule,
      callId: request.callId,
      signal: request.signal,
    });
  }
}
