import { bindContributions } from '../../../core/contribution-collector.js';
import { bindProvider } from '../../../core/contributions.js';
import { OPTIONAL_PACKAGES, requirePackages } from '../../../core/optional-packages.js';
import { PluginModule } from '../../../core/plugin-module.js';
import { COMMAND_RULE_PARSER } from './bash-grammar.js';
import { ApprovalConfig, resolveApprovalConfig } from './approval-config.js';
import { ApprovalAnswerer, ApprovalService } from './approval-service.js';
import { CommandPolicy } from './command-policy.js';
import { LocalApprovalService } from './local-approval-service.js';
import { LocalCommandPolicy } from './local-command-policy.js';
import { bindWebhookAnswerer } from './webhook/webhook.module.js';
import { resolveWebhookConfig } from './webhook/webhook-config.js';
import { bindAnswererPrompt } from './answerer-prompt.js';

/**
 * The approval service (`ApprovalService` → `LocalApprovalService`,
 * singleton) with its config, and the collector that hands it the bound
 * `ApprovalAnswerer`s at request time. Answerers come from other plugins
 * (`mcpApprovalModule`, `approvalAnswerersModule`); without any, every
 * escalation is `unavailable`. Also the command policy (`CommandPolicy` →
 * `LocalCommandPolicy`) over `rules` / `defaultAction`. A bad config fails
 * the load.
 */
export function approvalModule(config: Partial<ApprovalConfig> = {}): PluginModule {
  return new PluginModule('approval:local', (options) => {
    const { bind } = options;
    const resolved = resolveApprovalConfig(config);
    // Rules judge lines with the bash parser, an optional package: a missing one fails createHost here, not every call.
    if (resolved.rules.length > 0) requirePackages(COMMAND_RULE_PARSER, OPTIONAL_PACKAGES.commandRules);
    bind(ApprovalConfig).toConstantValue(resolved);
    bindContributions(options, ApprovalAnswerer);
    bindProvider(bind, ApprovalService, LocalApprovalService);
    bindProvider(bind, CommandPolicy, LocalCommandPolicy);
    if (resolved.webhook !== undefined) bindWebhookAnswerer(bind, resolveWebhookConfig(resolved.webhook));
    if (resolved.webhook !== undefined || resolved.answerers !== undefined) bindAnswererPrompt(bind);
  });
}

/** Contributes `answerers` (consulted in this order, after any bound earlier). */
export function approvalAnswerersModule(answerers: readonly ApprovalAnswerer[], name = 'approval:answerers'): PluginModule {
  return new PluginModule(name, ({ bind }) => {
    for (const answerer of answerers) bind(ApprovalAnswerer).toConstantValue(answerer);
  });
}
