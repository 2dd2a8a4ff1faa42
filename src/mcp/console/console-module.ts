import type { DshHost } from '../../container/dsh-host.js';
import { PluginModule } from '../../core/plugin-module.js';
import { bindAnswererPrompt } from '../../providers/policy/approval/answerer-prompt.js';
import { ApprovalConfig } from '../../providers/policy/approval/approval-config.js';
import { ApprovalAnswerer } from '../../providers/policy/approval/approval-service.js';
import { AuditSink } from '../../providers/observability/audit-sink.js';
import { ConsoleApprovalAnswerer } from './console-answerer.js';
import { ConsoleAuditFeed } from './console-feed.js';

/** What `serve --console` adds to the host: the console's answerer and its audit feed. */
export interface ConsoleParts {
  readonly answerer: ConsoleApprovalAnswerer;
  readonly feed: ConsoleAuditFeed;
}

/**
 * Loads the console into `host`: its answerer joins the approval chain
 * (after the client's elicitation, before the webhook, unless
 * `approval.answerers` orders otherwise), its feed becomes an audit sink,
 * and the `approval:answerers` prompt section tells the model the console
 * answers (bound here when the approval config did not bind it already).
 */
export async function loadConsole(host: DshHost): Promise<ConsoleParts> {
  const parts = { answerer: new ConsoleApprovalAnswerer(), feed: new ConsoleAuditFeed() };
  const config = host.isBound(ApprovalConfig) ? host.get(ApprovalConfig) : undefined;
  const promptBound = config?.webhook !== undefined || config?.answerers !== undefined;
  await host.load(
    new PluginModule('console', ({ bind }) => {
      bind(ApprovalAnswerer).toConstantValue(parts.answerer);
      bind(AuditSink).toConstantValue(parts.feed);
      if (config !== undefined && !promptBound) bindAnswererPrompt(bind);
    }),
  );
  return parts;
}
