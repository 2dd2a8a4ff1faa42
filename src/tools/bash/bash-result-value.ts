import type { SandboxDecision } from '../../providers/policy/planner/call-planner.js';
import type { SandboxMode } from '../../core/sandbox-mode.js';
import type { RunResult } from '../../providers/exec/shell/shell-executor.js';

/** A one-shot run as the model sees it: the executor's result with, in a sandboxed composition, the mode it ran under. */
export type OneShotResult = Omit<RunResult, 'confinementDenied'> & {
  /** Set in a sandboxed composition: true when the failure carries the sandbox's denial signature. */
  readonly sandboxDenied?: boolean;
  /** Set in a sandboxed composition: the mode the command ran under. */
  readonly sandboxMode?: SandboxMode;
};

/**
 * The executor's result with the plan's sandbox decision added, in the
 * field order the value always had (the run's fields, the sandbox's, then
 * leftovers and limits). A command kept running past its timeout has not
 * ended: its result carries no sandbox facts yet.
 */
export function oneShotValue(ran: RunResult, sandbox: SandboxDecision | undefined): OneShotResult {
  const { confinementDenied, leftoversKilled, limitsReached, ...run } = ran;
  if (sandbox === undefined || ran.continuation !== undefined) return ran;
  return {
    ...run,
    sandboxMode: sandbox.mode,
    sandboxDenied: confinementDenied === true,
    ...(leftoversKilled === undefined ? {} : { leftoversKilled }),
    ...(limitsReached === undefined ? {} : { limitsReached }),
  };
}
