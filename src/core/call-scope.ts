import { AsyncLocalStorage } from 'node:async_hooks';

// Tracing only: a step (`callStep`) is marked deep inside a provider (a
// container start) that is handed no call context, and a span's children
// must nest under the call's span, so the step finds its call here. What a
// call's policy decided does not come this way: it travels with the call as
// data (`CallContext.onPlan`, src/core/call-plan.ts).

/** A step of a call that an observer times (a child span): `end` once it is over. */
export interface CallStep {
  end(error?: unknown): void;
}

/** The hooks a tracing observer sets to time a call's steps. One per observed call. */
export interface CallScope {
  /**
   * Set once the call answered. Callbacks created during a call (a shell's
   * listeners, a timer) keep its scope after it ended: they must not add to it.
   */
  ended?: boolean;
  /** Lines the call's answer ends with, said during the call for it alone (who approved it in the operator console). */
  notes?: string[];
  /** Set by a tracing observer at the call's start. */
  startStep?: (name: string) => CallStep;
  /** Set by a tracing observer at the call's start: runs the call inside its span's context. */
  around?: <T>(run: () => Promise<T>) => Promise<T>;
}

const scopes = new AsyncLocalStorage<CallScope>();

/** Runs `run` as the observed call `scope` (the host's call hook). */
export function runInCallScope<T>(scope: CallScope, run: () => T): T {
  return scopes.run(scope, run);
}

/** The observed call this code runs in, if any (and if it has not answered yet). */
export function currentCallScope(): CallScope | undefined {
  const scope = scopes.getStore();
  return scope?.ended ? undefined : scope;
}

/**
 * Adds lines to the current call's own answer later (an approval's note once
 * an operator answered); undefined outside an observed call. Lines given after
 * the call answered are dropped.
 */
export function noteForCurrentCall(): ((line: string) => void) | undefined {
  const scope = currentCallScope();
  if (!scope) return undefined;
  return (line) => {
    if (!scope.ended) (scope.notes ??= []).push(line);
  };
}

/** Runs a step of the current call (e.g. a container start) so observers can time it; just runs it outside a call. */
export async function callStep<T>(name: string, run: () => Promise<T>): Promise<T> {
  let step: CallStep | undefined;
  try {
    step = currentCallScope()?.startStep?.(name);
  } catch {
    // An observer's failure never fails the step.
  }
  if (!step) return run();
  try {
    const value = await run();
    endQuietly(step);
    return value;
  } catch (error) {
    endQuietly(step, error);
    throw error;
  }
}

function endQuietly(step: CallStep, error?: unknown): void {
  try {
    step.end(error);
  } catch {
    // As above.
  }
}
