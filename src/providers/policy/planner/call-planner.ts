import type { ServiceIdentifier } from 'inversify';
import type { CallContext } from '../../../core/tool-contract.js';
import type { SandboxMode } from '../../../core/sandbox-mode.js';
import type { CommandConfinement, ExecSpec } from '../../exec/shell/shell-executor.js';

/** One tool call as its tool hands it over, before anything about it is decided. */
export interface CallRequest {
  /** The tool's name (what command rules and the approver are told). */
  readonly tool: string;
  readonly command: string;
  /** As the model gave it: relative to the session's directory (or the sandbox's workspace root). */
  readonly workdir?: string;
  readonly timeoutMs?: number;
  /** A wider sandbox mode the model asks for this one call, with its reason (both or neither). */
  readonly escalation?: { readonly mode?: SandboxMode; readonly justification?: string };
  /** A background start (the managed overlay says so). */
  readonly background: boolean;
}

/** What the sandbox decided for a call: its mode and the workspace it was decided for (absent: no sandbox composed). */
export interface SandboxDecision {
  readonly mode: SandboxMode;
  /** The session's workspace, symlinks resolved (by the policy, once); absent when no policy is composed (the confinement finds it). */
  readonly workspaceRoot?: string;
}

/**
 * A call decided, once: the checked arguments with the confinement and the
 * environment to apply (`exec`, which only `ExecSpec.check` makes), and the
 * sandbox decision it carries. Only a planner makes one (the constructor is
 * private to this class's `decided`, and the private field keeps object
 * literals out): executors apply `exec` as it is.
 */
export class ExecutionPlan {
  readonly #decided = true;

  private constructor(
    readonly exec: ExecSpec,
    readonly sandbox: SandboxDecision | undefined,
  ) {
    Object.freeze(this);
  }

  /** For planners: the plan of a call whose checks and verdicts all passed. */
  static decided(exec: ExecSpec, sandbox: SandboxDecision | undefined): ExecutionPlan {
    return new ExecutionPlan(exec, sandbox);
  }

  /** True for a plan a planner made (not a copy or a look-alike). */
  static isPlan(value: unknown): value is ExecutionPlan {
    return typeof value === 'object' && value !== null && #decided in value;
  }
}

/** A persistent shell's call, decided: the verdicts passed; the confinement its shell must run under. */
export interface ShellPlan {
  /** `null`: unconfined by decision; absent: no sandbox composed (the backend's own default applies). */
  readonly confinement?: CommandConfinement | null;
  readonly sandbox?: SandboxDecision;
}

/** What a composition offers a model that wants a wider sandbox (the tools' schema and texts adapt to it). */
export interface EscalationFacts {
  /** The escalation fields exist: a sandbox is composed. */
  readonly offered: boolean;
  /** The result of a denied command says escalation is available (offered, and an approver can be asked). */
  readonly advertised: boolean;
  /** Set when escalation is refused outright (a container): the text a model's escalation gets. */
  readonly refusal?: string;
}

/**
 * The one owner of a call's decisions: it checks the arguments, asks the
 * command policy, resolves the sandbox (mode, workspace, confinement) and,
 * for an escalation, the approver, and collects the managed environment, in
 * that order and each once. A refusal throws the model-readable error.
 */
export interface CallPlanner {
  readonly escalation: EscalationFacts;
  plan(call: CallRequest, ctx: CallContext): Promise<ExecutionPlan>;
  /**
   * A call to a persistent shell: the command policy's verdict (no workdir:
   * the shell is wherever an earlier `cd` left it) and the confinement the
   * shell must have; a shell opened under another `confinement.key` is replaced.
   */
  planShell(call: Pick<CallRequest, 'tool' | 'command'>, ctx: CallContext): Promise<ShellPlan>;
}

export const CallPlanner: ServiceIdentifier<CallPlanner> = Symbol.for('dsh.CallPlanner');

/** The planner's settings: the container composition refuses escalation with its own text. */
export interface CallPlannerConfig {
  readonly escalationRefusal?: string;
}

export const CallPlannerConfig: ServiceIdentifier<CallPlannerConfig> = Symbol.for('dsh.CallPlannerConfig');
