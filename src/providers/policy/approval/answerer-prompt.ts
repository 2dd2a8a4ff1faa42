import type { ContainerModuleLoadOptions } from 'inversify';
import { PromptSection } from '../../../core/prompt-section.js';
import { answererChain } from './answerer-chain.js';
import { ApprovalConfig } from './approval-config.js';
import type { ApprovalAnswerer } from './approval-service.js';
import { ApprovalAnswerers } from './local-approval-service.js';

/** Who each built-in answerer is, as the model reads it. */
const WHO: Readonly<Record<string, string>> = {
  'mcp-elicitation': 'the user, in a form of your MCP client, if the client offers forms',
  webhook: "the operator's approval webhook",
  console: "an operator, in this server's operator console (it may take a while: a person is asked)",
};

const OPENING = 'Approvals (a sandbox escalation, or a command under an ask rule)';

/**
 * The prompt section that tells the model who can answer an approval
 * (docs/contract.md §10), so it neither waits for an answer nobody can give
 * nor asks for one in its reply. Read when the prompt is assembled: the MCP
 * server binds its elicitation answerer after the composition loads.
 */
function answererPrompt(chain: readonly ApprovalAnswerer[], timeoutMs: number): string {
  if (chain.length === 0) {
    return `${OPENING} cannot be answered here: no approver is configured, so each is refused at once. Do not request sandbox_permissions; work within the current mode, or tell the user what you could not run and why.`;
  }
  const who = chain.map((answerer) => WHO[answerer.name] ?? `the approver "${answerer.name}"`);
  return (
    `${OPENING} are answered by: ${who.join('; else ')}; else nobody, and the call is refused. ` +
    `A call waits at most ${timeoutMs / 1000}s for its answer, and its result says what was decided: do not ask for approval in your reply.`
  );
}

/** Binds the `approval:answerers` section (order 106), built from the answerers bound when the prompt is read. */
export function bindAnswererPrompt(bind: ContainerModuleLoadOptions['bind']): void {
  bind(PromptSection)
    .toDynamicValue((context) => {
      // The resolved config (approvalModule binds it so).
      const config = context.get(ApprovalConfig) as ApprovalConfig;
      const chain = answererChain(context.get(ApprovalAnswerers)(), config.answerers);
      return Object.freeze({ name: 'approval:answerers', order: 106, text: answererPrompt(chain, config.timeoutMs) });
    })
    .inTransientScope();
}
