import path from 'node:path';
import { executionSiteOf, ExecutionSite } from '../../../core/execution-site.js';
import { callInfoOf } from '../../../core/tool-call-context.js';
import { inject, injectable, multiInject, optional } from 'inversify';
import type { CallContext, SessionContext } from '../../../core/tool-contract.js';
import { enforceCommandPolicy } from '../approval/command-check.js';
import { CommandPolicy } from '../approval/command-policy.js';
import { ApprovalService } from '../approval/approval-service.js';
import { EnvRegistry } from '../env/env-registry.js';
import { Confinement } from '../sandbox/confinement.js';
import { SandboxPolicy } from '../sandbox/sandbox-policy.js';
import { ShellExecutor } from '../../exec/shell/shell-executor.js';
import { Logger } from '../../logging/logger.js';
import {
  CallPlannerConfig,
  ExecutionPlan,
  type CallPlanner,
  type CallRequest,
  type EscalationFacts,
  type SandboxDecision,
  type ShellPlan,
} from './call-planner.js';
import { approvedEscalation, checkEscalationFields, noSandboxToEscalate } from './escalation-decision.js';
import { recordPlan, type PlanDraft } from './plan-record.js';

/**
 * The default planner. A sandbox is composed when a `Confinement` is bound;
 * its mode and workspace come from one `SandboxPolicy` resolution per call
 * (the deployment default when no policy is bound), and the confinement is
 * made from exactly that decision. Without a sandbox every call runs
 * unconfined and an escalation is refused (with the configured text in a
 * container composition).
 */
@injectable()
export class LocalCallPlanner implements CallPlanner {
  readonly escalation: EscalationFacts;
  private readonly site: ExecutionSite;

  constructor(
    @inject(EnvRegistry) private readonly env: EnvRegistry,
    // A persistent-shell composition plans shells only; the one-shot tool that calls `plan` requires an executor.
    @inject(ShellExecutor) @optional() private readonly executor?: ShellExecutor,
    @inject(Confinement) @optional() private readonly confinement?: Confinement,
    @inject(SandboxPolicy) @optional() private readonly policy?: SandboxPolicy,
    @inject(ApprovalService) @optional() private readonly approval?: ApprovalService,
    @inject(CommandPolicy) @optional() private readonly commands?: CommandPolicy,
    @inject(CallPlannerConfig) @optional() config: CallPlannerConfig = {},
    @inject(Logger) @optional() private readonly logger?: Logger,
    @multiInject(ExecutionSite) @optional() sites: readonly ExecutionSite[] = [],
  ) {
    this.site = executionSiteOf(sites);
    const offered = confinement !== undefined;
    this.escalation = Object.freeze({
      offered,
      advertised: offered && approval !== undefined,
      ...(config.escalationRefusal === undefined ? {} : { refusal: config.escalationRefusal }),
    });
  }

  /** Hands the call its plan as data (`ctx.onPlan`), also when a check refuses it. */
  plan(call: CallRequest, ctx: CallContext): Promise<ExecutionPlan> {
    return recordPlan(ctx, this.site, (draft) => this.decide(call, ctx, draft));
  }

  planShell(call: Pick<CallRequest, 'tool' | 'command'>, ctx: CallContext): Promise<ShellPlan> {
    return recordPlan(ctx, this.site, async (draft) => {
      const sandbox = this.sandboxOf(ctx.session);
      draft.sandboxMode = sandbox?.mode;
      await enforceCommandPolicy(this.commands, { tool: call.tool, command: call.command, sandboxMode: sandbox?.mode }, ctx, (verdict) => (draft.verdict = verdict));
      if (sandbox === undefined) return {};
      const confinement = this.confinement!.forSession(ctx.session, sandbox) ?? null;
      draft.confinement = confinement?.key;
      return { confinement, sandbox };
    });
  }

  private async decide(call: CallRequest, ctx: CallContext, draft: PlanDraft): Promise<ExecutionPlan> {
    const session = ctx.session;
    const current = this.sandboxOf(session);
    draft.sandboxMode = current?.mode;
    const shownWorkdir = workdirFor(call.workdir, session);
    const check = { tool: call.tool, command: call.command, workdir: shownWorkdir, sandboxMode: current?.mode };
    await enforceCommandPolicy(this.commands, check, ctx, (verdict) => (draft.verdict = verdict));
    const requested = checkEscalationFields(call.escalation);
    if (requested !== undefined && current === undefined) throw noSandboxToEscalate(this.escalation.refusal);
    const sandbox: SandboxDecision | undefined =
      requested === undefined || current === undefined
        ? current
        : { ...current, mode: await approvedEscalation(call, ctx, { current: current.mode, requested, workdir: shownWorkdir, approval: this.approval }) };
    draft.sandboxMode = sandbox?.mode;
    // The checks of the arguments first (their errors come before the sandbox's), then the confinement decided from `sandbox`.
    if (this.executor === undefined) throw new Error('no shell executor is composed to run a one-shot call');
    const checked = this.executor.checkRequest({
      command: call.command,
      workdir: workdirFor(call.workdir, session, sandbox?.workspaceRoot),
      timeoutMs: call.timeoutMs,
      session,
      confinement: null,
    });
    const confinement = sandbox === undefined ? null : (this.confinement!.forSession(session, sandbox) ?? null);
    draft.confinement = confinement?.key;
    const dshEnv = this.env.collect({ session, mode: call.background ? 'background' : 'foreground', workdir: checked.workdir, call: callInfoOf(ctx) });
    return ExecutionPlan.decided(checked.with({ confinement, dshEnv }), sandbox);
  }

  /** The session's sandbox, resolved once for the whole call; undefined without one. */
  private sandboxOf(session: SessionContext | undefined): SandboxDecision | undefined {
    if (this.confinement === undefined) return undefined;
    const resolved = this.policy?.decide({ ...(session ? { session } : {}) });
    if (resolved !== undefined) return { mode: resolved.mode, workspaceRoot: resolved.workspaceRoot };
    // A confinement without a policy: its default mode; it finds the workspace itself.
    return { mode: this.confinement.defaultMode };
  }
}

/** Session cwd by default; a relative workdir resolves against it (or the sandbox's workspace root). */
function workdirFor(workdir: string | undefined, session: SessionContext | undefined, workspaceRoot?: string): string | undefined {
  const base = workspaceRoot ?? session?.cwd;
  if (workdir === undefined) return base;
  if (path.isAbsolute(workdir) || base === undefined) return workdir;
  return path.resolve(base, workdir);
}
