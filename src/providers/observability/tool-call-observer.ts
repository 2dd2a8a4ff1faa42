import type { ContainerModuleLoadOptions, Newable, ServiceIdentifier } from 'inversify';
import type { ApprovalDecision, ApprovalKind } from '../policy/approval/approval-service.js';
import type { ExecutionSite } from '../../core/execution-site.js';
import type { SandboxMode } from '../../core/sandbox-mode.js';
import type { CallPlan, PolicyVerdict } from '../../core/call-plan.js';
import type { ClientTrace } from './client-trace.js';

/**
 * How a call ended, as operators count it. `exit_nonzero`: the command ran and
 * failed (or a signal ended it); `error`: the tool answered `Error: …` (bad
 * arguments, a refusal other than a denial, an infrastructure failure);
 * `denied`: a command rule or a refused approval stopped it before it ran;
 * `promoted`: a foreground command outlived its default timeout and became a
 * background task.
 */
export type CallOutcome = 'ok' | 'exit_nonzero' | 'error' | 'timeout' | 'cancelled' | 'denied' | 'promoted';

export const CALL_OUTCOMES: readonly CallOutcome[] = ['ok', 'exit_nonzero', 'error', 'timeout', 'cancelled', 'denied', 'promoted'];

/** Where commands of the call run: on this machine, in the bwrap sandbox, in a session container. */
export type CallMode = ExecutionSite;

/** What a command rule said about the call's command: `ask` went to the approval service. */
export type { PolicyVerdict };

/** The call as it starts: who, where, what. */
export interface ToolCallStart {
  /** Epoch milliseconds. */
  readonly time: number;
  readonly callId: string;
  /** As called (cut at 200 characters). */
  readonly tool: string;
  /** False when no bound tool has this name (the call answers `unknown tool`): metrics label it `(unknown)`. */
  readonly knownTool: boolean;
  /** The token name the session was opened with (HTTP named tokens); absent otherwise. */
  readonly caller?: string;
  readonly sessionId?: string;
  /** The session id the client and its proxy log (`Mcp-Session-Id`, or a 2026-07-28 session handle); absent on stdio. */
  readonly clientSessionId?: string;
  /** The trace the client sent with the call (`_meta.traceparent`): the call's span continues it. */
  readonly clientTrace?: ClientTrace;
  /** The client's address (HTTP; the `X-Forwarded-For` client when the peer is a `--trusted-proxy`). */
  readonly peer?: string;
  /** The call's `command` argument, redacted through the host's redactor; absent for tools without one. */
  readonly command?: string;
  /** The call's `workdir` argument, else the session's cwd. */
  readonly workdir?: string;
  readonly mode: CallMode;
  /** The sandbox mode the call starts in (the one it ran under, in the end event); absent when nothing confines it. */
  readonly sandboxMode?: SandboxMode;
}

/** Output bytes of the call's result, per stream (`pty`: the persistent shell's one stream; `task`: a task_output read). */
export interface OutputBytes {
  readonly stdout: number;
  readonly stderr: number;
  readonly pty: number;
  readonly task: number;
}

/** One approval asked during a call. */
export interface CallApproval {
  readonly kind: ApprovalKind;
  readonly decision: ApprovalDecision;
  /** An answerer's name, or `policy:<name>` when a policy decided without asking. */
  readonly answeredBy?: string;
  /** Why the answerer failed (a webhook's timeout, a bad signature…), when it did. */
  readonly detail?: string;
  /** Epoch milliseconds (the approval service's clock). */
  readonly requestedAt: number;
  readonly decidedAt: number;
}

/** The call as it ended. Never carries the command's output. */
export interface ToolCallEnd extends ToolCallStart {
  readonly outcome: CallOutcome;
  /** The command's exit code, when one ran to its end. */
  readonly exitCode: number | null;
  /** The signal that ended the command, if any. */
  readonly signal?: string;
  readonly durationMs: number;
  readonly outputBytes: OutputBytes;
  /** Processes still alive when the command ended, killed then. */
  readonly leftoversKilled: number;
  readonly policyVerdict?: PolicyVerdict;
  /** The approval asked during the call (the last one when several were), and who answered. */
  readonly approval?: { readonly decision: ApprovalDecision; readonly answeredBy?: string; readonly detail?: string };
  /** Every approval asked during the call, oldest first. */
  readonly approvals: readonly CallApproval[];
  /** Persistent `bash` only: whether the session's shell still runs after the call. */
  readonly persistentShell?: 'open' | 'closed';
  /** A background task the call started (or its command was promoted to). */
  readonly taskId?: string;
  /** What the policy decided for the call, as the planner made it (also for a call it refused); absent for a call nobody planned. */
  readonly plan?: CallPlan;
}

/**
 * Sees every tool call of the host (one-shot and persistent `bash`, task
 * tools, custom tools), before it runs and after it answered. Multi-bound,
 * consulted in binding order. The call waits for a returned promise; a
 * throw or rejection is logged and never changes the call's result.
 */
export interface ToolCallObserver {
  /** Named in the log when it fails. */
  readonly name: string;
  onCallStart?(event: ToolCallStart): void | Promise<void>;
  onCallEnd?(event: ToolCallEnd): void | Promise<void>;
}

export const ToolCallObserver: ServiceIdentifier<ToolCallObserver> = Symbol.for('dsh.ToolCallObserver');

/** Registers an observer (a class, built once per host, or an instance). One line in the module that owns it. */
export function bindToolCallObserver(
  bind: ContainerModuleLoadOptions['bind'],
  observer: Newable<ToolCallObserver> | ToolCallObserver,
): void {
  if (typeof observer === 'function') bind(ToolCallObserver).to(observer).inSingletonScope();
  else bind(ToolCallObserver).toConstantValue(observer);
}
