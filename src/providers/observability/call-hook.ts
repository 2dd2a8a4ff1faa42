import { readContributions } from '../../core/contribution-collector.js';
import { messageOf } from '../../core/describe-value.js';
import { errorResult, type CallContext, type SessionContext, type ToolResult } from '../../core/tool-contract.js';
import { Logger } from '../logging/logger.js';
import { callEnd, callStart, type ObservationSource } from './call-events.js';
import { runInCallScope, type CallScope } from '../../core/call-scope.js';
import type { CallPlan } from '../../core/call-plan.js';
import { HostMetrics } from './host-metrics.js';
import { ToolCallObserver, type ToolCallEnd, type ToolCallStart } from './tool-call-observer.js';
import { monotonicMs } from '../../core/monotonic-ms.js';

/**
 * The host's one observation hook around a tool call: start and end events
 * to every bound `ToolCallObserver`. The call's context takes its plan
 * (`onPlan`: what the policy decided, as data) to the end event; the call
 * runs inside its `CallScope` so a tracing observer can time its steps. With
 * no observer bound it only runs the call. Never changes the result: an
 * observer's failure is logged.
 */
export async function observeCall<V>(
  source: ObservationSource,
  tool: string,
  rawArgs: unknown,
  ctx: CallContext,
  run: (ctx: CallContext) => Promise<ToolResult<V>>,
): Promise<ToolResult<V>> {
  const observers = readContributions(source, ToolCallObserver);
  if (observers.length === 0) return run(ctx);
  const scope: CallScope = {};
  let plan: CallPlan | undefined;
  // A plan handed over after the call answered (a late callback) is not this call's any more.
  const planned: CallContext = { ...ctx, onPlan: (decided) => void (scope.ended ? undefined : (plan = decided)) };
  return runInCallScope(scope, async () => {
    const started = monotonicMs();
    let start: ToolCallStart;
    try {
      start = callStart(source, tool, rawArgs, ctx);
    } catch (error) {
      loggerOf(source)?.error(`observability: cannot describe the call of ${tool}: ${messageOf(error)}`);
      return run(planned);
    }
    await notify(source, observers, 'start', (observer) => observer.onCallStart?.(start));
    let result: ToolResult<V>;
    try {
      result = await (scope.around ? scope.around(() => run(planned)) : run(planned));
    } catch (error) {
      await ended(source, observers, start, scope, { rawArgs, result: errorResult(messageOf(error)), plan, ctx, durationMs: monotonicMs() - started });
      throw error;
    }
    await ended(source, observers, start, scope, { rawArgs, result, plan, ctx, durationMs: monotonicMs() - started });
    return withNotes(result, scope.notes);
  });
}

/** The result with the call's notes as its last lines (they belong to this call, unlike the session's notices). */
function withNotes<V>(result: ToolResult<V>, notes: readonly string[] | undefined): ToolResult<V> {
  const last = result.content.at(-1);
  if (!notes?.length || last === undefined) return result;
  return { ...result, content: [...result.content.slice(0, -1), { ...last, text: [last.text, ...notes].join('\n') }] };
}

/** Counts the session among the open ones until it is disposed (when the host has metrics). Returns it. */
export function observeSession<S extends SessionContext>(source: ObservationSource, session: S): S {
  if (source.isBound(HostMetrics)) source.get(HostMetrics).sessionOpened(session);
  return session;
}

async function ended(
  source: ObservationSource,
  observers: readonly ToolCallObserver[],
  start: ToolCallStart,
  scope: CallScope,
  ending: Parameters<typeof callEnd>[2],
): Promise<void> {
  let end: ToolCallEnd;
  try {
    end = callEnd(source, start, ending);
  } catch (error) {
    scope.ended = true;
    loggerOf(source)?.error(`observability: cannot describe the end of call ${start.callId} (${start.tool}): ${messageOf(error)}`);
    return;
  }
  // The end observers still find the call's scope (the tracing observer ends its span there); then it is closed.
  await notify(source, observers, 'end', (observer) => observer.onCallEnd?.(end));
  scope.ended = true;
}

/** Calls every observer (in binding order, without waiting for one before the next) and waits for all; failures are logged. */
async function notify(
  source: ObservationSource,
  observers: readonly ToolCallObserver[],
  phase: 'start' | 'end',
  call: (observer: ToolCallObserver) => void | Promise<void>,
): Promise<void> {
  const settled = await Promise.allSettled(observers.map(async (observer) => call(observer)));
  settled.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    const name = typeof observers[index]?.name === 'string' ? observers[index]!.name : 'unnamed observer';
    loggerOf(source)?.error(`observability: observer "${name}" failed on call ${phase}: ${messageOf(outcome.reason)}`);
  });
}

function loggerOf(source: ObservationSource): Logger | undefined {
  try {
    return source.isBound(Logger) ? source.get(Logger) : undefined;
  } catch {
    return undefined;
  }
}
