import { ToolError, type CallContext } from '../../../core/tool-contract.js';
import type { CommandCheck, CommandPolicy } from './command-policy.js';
import { noteCommandVerdict } from '../../../core/call-scope.js';

/**
 * The one line a tool calls before running a command: nothing happens without
 * a bound policy; a refusal becomes the call's `Error: <message>`.
 */
export async function enforceCommandPolicy(
  policy: CommandPolicy | undefined,
  request: Omit<CommandCheck, 'session' | 'callId' | 'signal'>,
  ctx: CallContext,
): Promise<void> {
  if (!policy) return;
  const verdict = await policy.check({ ...request, session: ctx.session, callId: ctx.callId, signal: ctx.signal });
  // For the call's audit record and span (an `ask` shows there as the approval it asked).
  noteCommandVerdict(verdict.allowed ? 'allow' : 'deny');
  if (!verdict.allowed) throw new ToolError(verdict.message);
}
