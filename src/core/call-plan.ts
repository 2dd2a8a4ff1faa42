import type { ExecutionSite } from './execution-site.js';
import type { SandboxMode } from './sandbox-mode.js';

/** What a command rule said of a call's command (`ask`: the rule asked the approval service). */
export type PolicyVerdict = 'allow' | 'ask' | 'deny';

/**
 * What the policy decided for one call, as plain data (frozen, no functions,
 * JSON as it is). The call planner makes one per call and hands it to the
 * call's `CallContext.onPlan`; the host's call hook carries it to the call's
 * end event, where observers read it (`ToolCallEnd.plan`). A call refused
 * before it ran carries what was decided up to the refusal.
 */
export interface CallPlan {
  /** Where the call's commands run (the backend the composition declared). */
  readonly site: ExecutionSite;
  /** What the command rule said; absent when no rule is composed. */
  readonly verdict?: PolicyVerdict;
  /** The sandbox mode the call runs under (an approved escalation's); absent when no sandbox is composed. */
  readonly sandboxMode?: SandboxMode;
  /** The key of the confinement that wraps the call's argv (its prefix and limits group); absent: unconfined. */
  readonly confinement?: string;
  /** Set when a check refused the call: nothing ran. */
  readonly refused?: true;
}
