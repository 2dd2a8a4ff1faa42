import { ToolError, type CallContext } from '../../../core/tool-contract.js';
import type { PolicyVerdict } from '../../../core/call-plan.js';
import type { CommandCheck, CommandPolicy } from './command-policy.js';

/**
 * The planner's one line before a command may run: nothing happens without a
 * bound policy; the verdict goes to `noteVerdict` (the call's plan: its audit
 * record and span, where an `ask` shows as the approval it asked); a refusal
 * becomes the call's `Error: <message>`.
 */
export async function enforceCommandPolicy(
  policy: CommandPolicy | undefined,
  request: Omit<CommandCheck, 'session' | 'callId' | 'signal'>,
  ctx: CallContext,
  noteVerdict: (verdict: PolicyVerdict) => void,
): Promise<void> {
  if (!policy) return;
  const verdict = await policy.check({ ...request, session: ctx.session, callId: ctx.callId, signal: ctx.signal });
  noteVerdict(verdict.allowed ? 'allow' : 'deny');
  if (!verdict.allowed) throw new ToolError(verdict.message);
}
