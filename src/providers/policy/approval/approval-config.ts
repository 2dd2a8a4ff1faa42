import type { ServiceIdentifier } from 'inversify';
import { mergeConfig } from '../../../core/config-merge.js';
import { describeValue } from '../../../core/describe-value.js';
import type { ApprovalPolicy } from './approval-service.js';
import type { CommandAction, CommandRule } from './command-policy.js';
import { COMMAND_ACTIONS, resolveRules } from './command-rules.js';
import { MAX_TIMER_MS } from '../../../core/timer.js';
import { resolveAnswererOrder, resolveWebhookConfig, type WebhookOptions } from './webhook/webhook-config.js';

/** Approval settings; every field optional in config. */
export interface ApprovalConfig {
  /** Policy of sessions without their own (`setPolicy`), and of calls without a session. Default `ask`. */
  readonly policy: ApprovalPolicy;
  /** The audit log keeps this many most recent records. Default 1000. */
  readonly maxAuditRecords: number;
  /** A request with no answer after this long is rejected (`timed-out`). Default 300000 (5 min). */
  readonly timeoutMs: number;
  /** Command rules, first match wins (see `CommandPolicy`). Default none. */
  readonly rules: readonly CommandRule[];
  /** The action for a command no rule matches. Default `allow`. */
  readonly defaultAction: CommandAction;
  /** Answerer names asked, in this order (only these); default every bound one, the webhook last. */
  readonly answerers?: readonly string[];
  /** The approval webhook (docs/security/approvals.md); default none. */
  readonly webhook?: WebhookOptions;
}

export const DEFAULT_APPROVAL_CONFIG: ApprovalConfig = Object.freeze({
  policy: 'ask',
  maxAuditRecords: 1000,
  timeoutMs: 300_000,
  rules: Object.freeze([]),
  defaultAction: 'allow',
  answerers: undefined,
  webhook: undefined,
});

export const ApprovalConfig: ServiceIdentifier<Partial<ApprovalConfig>> = Symbol.for('dsh.ApprovalConfig');

export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = Object.freeze(['ask', 'never']);

export function isApprovalPolicy(value: unknown): value is ApprovalPolicy {
  return typeof value === 'string' && (APPROVAL_POLICIES as readonly string[]).includes(value);
}

/** Merges over the defaults and checks; throws `invalid approval config: …` (unknown keys included). */
export function resolveApprovalConfig(partial: Partial<ApprovalConfig> | undefined = {}): ApprovalConfig {
  const merged = mergeConfig('approval', DEFAULT_APPROVAL_CONFIG, partial);
  const policy = merged.policy;
  const maxAuditRecords = merged.maxAuditRecords;
  const timeoutMs = merged.timeoutMs;
  if (!isApprovalPolicy(policy)) {
    throw new Error(`invalid approval config: policy must be ask or never, got ${describeValue(policy)}`);
  }
  if (typeof maxAuditRecords !== 'number' || !Number.isSafeInteger(maxAuditRecords) || maxAuditRecords < 1) {
    throw new Error(`invalid approval config: maxAuditRecords must be a positive integer, got ${describeValue(maxAuditRecords)}`);
  }
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
    throw new Error(`invalid approval config: timeoutMs must be an integer from 1 to ${MAX_TIMER_MS}, got ${describeValue(timeoutMs)}`);
  }
  if (!COMMAND_ACTIONS.includes(merged.defaultAction as CommandAction)) {
    throw new Error(`invalid approval config: defaultAction must be allow, ask or deny, got ${describeValue(merged.defaultAction)}`);
  }
  const rules = resolveRules(merged.rules);
  const answerers = resolveAnswererOrder(merged.answerers);
  const webhook = merged.webhook === undefined ? undefined : resolveWebhookConfig(merged.webhook);
  return Object.freeze({
    policy,
    maxAuditRecords,
    timeoutMs,
    rules,
    defaultAction: merged.defaultAction as CommandAction,
    ...(answerers === undefined ? {} : { answerers }),
    ...(webhook === undefined ? {} : { webhook }),
  });
}
