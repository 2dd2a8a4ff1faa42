import type { CallPlan, PolicyVerdict } from '../../../core/call-plan.js';
import type { ExecutionSite } from '../../../core/execution-site.js';
import type { CallContext } from '../../../core/tool-contract.js';

/** A call's plan while the planner decides it: each check fills in what it decided. */
export interface PlanDraft {
  verdict?: PolicyVerdict;
  sandboxMode?: CallPlan['sandboxMode'];
  confinement?: string;
}

/**
 * Runs `decide` and hands the call its plan as plain data (`ctx.onPlan`):
 * the whole plan once decided, or, when a check throws, what was decided up
 * to then, marked refused. The error is thrown on unchanged.
 */
export async function recordPlan<T>(ctx: CallContext, site: ExecutionSite, decide: (draft: PlanDraft) => Promise<T>): Promise<T> {
  const draft: PlanDraft = {};
  let value: T;
  try {
    value = await decide(draft);
  } catch (error) {
    handOver(ctx, site, draft, true);
    throw error;
  }
  handOver(ctx, site, draft, false);
  return value;
}

function handOver(ctx: CallContext, site: ExecutionSite, draft: PlanDraft, refused: boolean): void {
  const plan: CallPlan = Object.freeze({
    site,
    ...(draft.verdict === undefined ? {} : { verdict: draft.verdict }),
    ...(draft.sandboxMode === undefined ? {} : { sandboxMode: draft.sandboxMode }),
    ...(draft.confinement === undefined ? {} : { confinement: draft.confinement }),
    ...(refused ? { refused: true as const } : {}),
  });
  ctx.onPlan?.(plan);
}
