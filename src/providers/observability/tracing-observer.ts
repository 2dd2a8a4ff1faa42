import { inject, injectable, optional } from 'inversify';
import type * as OtelApi from '@opentelemetry/api';
import { lazyModule } from '../../core/lazy-module.js';
import { messageOf } from '../../core/describe-value.js';
import { currentCallScope, type CallScope, type CallStep } from '../../core/call-scope.js';
import { DEFAULT_TELEMETRY_CONFIG, TelemetryConfig } from './observability-config.js';
import type { ToolCallEnd, ToolCallObserver, ToolCallStart } from './tool-call-observer.js';

/** The OpenTelemetry API only (the embedding application brings the SDK); loaded with the first call once an SDK is registered. */
const otelApi = lazyModule<typeof OtelApi>(
  () => require('@opentelemetry/api'),
  () => import('@opentelemetry/api'),
);

const TRACER_NAME = 'dsh-tools';

/**
 * Where @opentelemetry/api 1.x keeps whatever an SDK registers (a tracer
 * provider, a context manager, a propagator), shared by every copy of the
 * API in the process; `test/providers/observability/otel-global-key.test.ts`
 * checks it against the API's version.
 */
export const OTEL_GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether anything was registered with the API. Without that every span is
 * the API's no-op and its context manager runs a function as it is, so a
 * call skips loading the API (part of a one-shot `dsh-tools call`'s start-up).
 */
function sdkRegistered(): boolean {
  return (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL_KEY] !== undefined;
}

/**
 * One span per tool call (`execute_tool <tool>`), with child spans for the
 * approvals it waited for and the steps providers mark (`container.start`).
 * Attributes never carry output; the command only with
 * `telemetry.includeCommand`. Without a registered SDK every span would be
 * the API's no-op: a call then makes none, and the API is not loaded.
 */
@injectable()
export class TracingObserver implements ToolCallObserver {
  readonly name = 'tracing';
  private readonly spans = new WeakMap<CallScope, OtelApi.Span>();
  private readonly config: TelemetryConfig;

  constructor(@inject(TelemetryConfig) @optional() config?: TelemetryConfig) {
    this.config = config ?? DEFAULT_TELEMETRY_CONFIG;
  }

  async onCallStart(start: ToolCallStart): Promise<void> {
    const scope = currentCallScope();
    if (!scope || !sdkRegistered()) return;
    const api = await otelApi();
    const tracer = api.trace.getTracer(TRACER_NAME);
    // A trace the client sent continues here; else the context active when the call was made.
    const client = start.clientTrace;
    const outer = client ? api.trace.setSpanContext(api.context.active(), { ...client, isRemote: true }) : api.context.active();
    const span = tracer.startSpan(
      `execute_tool ${start.tool}`,
      { kind: api.SpanKind.INTERNAL, startTime: start.time, attributes: startAttributes(start, this.config.includeCommand) },
      outer,
    );
    this.spans.set(scope, span);
    const parent = api.trace.setSpan(outer, span);
    scope.around = (run) => api.context.with(parent, run);
    scope.startStep = (name): CallStep => {
      const child = tracer.startSpan(name, { kind: api.SpanKind.INTERNAL }, parent);
      return {
        end(error?: unknown) {
          if (error !== undefined) child.setStatus({ code: api.SpanStatusCode.ERROR, message: messageOf(error) });
          child.end();
        },
      };
    };
  }

  async onCallEnd(end: ToolCallEnd): Promise<void> {
    const scope = currentCallScope();
    const span = scope && this.spans.get(scope);
    if (!span) return;
    const api = await otelApi();
    const parent = api.trace.setSpan(api.context.active(), span);
    const tracer = api.trace.getTracer(TRACER_NAME);
    for (const approval of end.approvals) {
      const child = tracer.startSpan(
        'approval',
        {
          startTime: approval.requestedAt,
          attributes: {
            'dsh.approval.kind': approval.kind,
            'dsh.approval.decision': approval.decision,
            ...(approval.answeredBy ? { 'dsh.approval.answered_by': approval.answeredBy } : {}),
          },
        },
        parent,
      );
      child.end(approval.decidedAt);
    }
    span.setAttributes(endAttributes(end));
    if (end.outcome === 'error') span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'the tool answered with an error' });
    span.end(end.time + end.durationMs);
  }
}

function startAttributes(start: ToolCallStart, includeCommand: boolean): OtelApi.Attributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': start.tool,
    'gen_ai.tool.call.id': start.callId,
    'dsh.mode': start.mode,
    ...(start.sessionId !== undefined ? { 'dsh.session.id': start.sessionId } : {}),
    ...(start.caller !== undefined ? { 'dsh.caller': start.caller } : {}),
    ...(start.workdir !== undefined ? { 'dsh.workdir': start.workdir } : {}),
    ...(includeCommand && start.command !== undefined ? { 'dsh.command': start.command } : {}),
  };
}

function endAttributes(end: ToolCallEnd): OtelApi.Attributes {
  const bytes = end.outputBytes;
  return {
    'dsh.outcome': end.outcome,
    'dsh.duration_ms': end.durationMs,
    'dsh.output_bytes': bytes.stdout + bytes.stderr + bytes.pty + bytes.task,
    'dsh.output_bytes.stdout': bytes.stdout,
    'dsh.output_bytes.stderr': bytes.stderr,
    'dsh.leftovers_killed': end.leftoversKilled,
    ...(end.sandboxMode !== undefined ? { 'dsh.sandbox_mode': end.sandboxMode } : {}),
    ...(end.exitCode !== null ? { 'process.exit.code': end.exitCode } : {}),
    ...(end.signal !== undefined ? { 'dsh.signal': end.signal } : {}),
    ...(end.policyVerdict !== undefined ? { 'dsh.policy': end.policyVerdict } : {}),
    ...(end.approval !== undefined ? { 'dsh.approval': end.approval.decision } : {}),
    ...(end.taskId !== undefined ? { 'dsh.task.id': end.taskId } : {}),
  };
}
