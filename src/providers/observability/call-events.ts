import type { ServiceIdentifier } from 'inversify';
import { readContributions, type ContributionSource } from '../../core/contribution-collector.js';
import { ToolClass } from '../../core/contributions.js';
import { executionSiteOf, ExecutionSite } from '../../core/execution-site.js';
import { HostConfig } from '../../core/host-config.js';
import { getToolMeta } from '../../core/tool.decorator.js';
import type { CallContext, ToolResult } from '../../core/tool-contract.js';
import { ApprovalService, type ApprovalRecord } from '../policy/approval/approval-service.js';
import { Redactor } from '../output-filter/redactor.js';
import type { SandboxMode } from '../../core/sandbox-mode.js';
import type { CallPlan } from '../../core/call-plan.js';
import { clientTraceOf } from './client-trace.js';
import { sessionClientOf, type SessionClient } from './session-client.js';
import type { CallApproval, CallOutcome, OutputBytes, ToolCallEnd, ToolCallStart } from './tool-call-observer.js';

/** What the call hook reads from the host's container. */
export interface ObservationSource extends ContributionSource {
  isBound(token: ServiceIdentifier): boolean;
  get<T>(token: ServiceIdentifier<T>): T;
}

/** Longer commands are cut in events and records (a command may be megabytes). */
const MAX_RECORDED_COMMAND_CHARS = 8192;
const MAX_TOOL_NAME_CHARS = 200;

/**
 * The start event of a call; reads only facts that are already there (never
 * throws on a provider's failure). The command is redacted when an observer
 * first reads it (an audit sink, a span with `telemetry.includeCommand`),
 * once per call: most calls have no reader, and redaction walks the text.
 */
export function callStart(source: ObservationSource, tool: string, rawArgs: unknown, ctx: CallContext): ToolCallStart {
  const args = isRecord(rawArgs) ? rawArgs : {};
  const workdir = typeof args.workdir === 'string' ? args.workdir : (ctx.session?.cwd ?? quietly(() => source.get(HostConfig).workspace));
  const caller = (ctx.session as { readonly caller?: unknown } | undefined)?.caller;
  // The policy decides once per call, in the planner: the start event only says where the composition runs
  // commands (as its modules declared it); the mode the call ran under comes with its end (its plan, or the result's `sandboxMode`).
  const known = String(tool).slice(0, MAX_TOOL_NAME_CHARS);
  const start: ToolCallStart = {
    time: Date.now(),
    callId: ctx.callId,
    tool: known,
    knownTool: toolNames(source).has(tool),
    ...(typeof caller === 'string' ? { caller } : {}),
    ...(ctx.session ? { sessionId: ctx.session.id } : {}),
    ...clientFields(sessionClientOf(ctx.session)),
    ...traceOf(ctx.callId),
    ...(workdir !== undefined ? { workdir } : {}),
    mode: executionSiteOf(source.getAll(ExecutionSite, { optional: true }) ?? []),
  };
  if (typeof args.command !== 'string') return start;
  const given = args.command;
  let recorded: string | undefined;
  return withCommand(start, { enumerable: true, get: () => (recorded ??= recordedCommand(source, given)) });
}

function traceOf(callId: string): Pick<ToolCallStart, 'clientTrace'> {
  const trace = clientTraceOf(callId);
  return trace === undefined ? {} : { clientTrace: trace };
}

function clientFields(client: SessionClient | undefined): Pick<ToolCallStart, 'clientSessionId' | 'peer'> {
  return {
    ...(client?.sessionId !== undefined ? { clientSessionId: client.sessionId } : {}),
    ...(client?.address !== undefined ? { peer: client.address } : {}),
  };
}

/** `event` with the `command` property described by `command` (a getter stays a getter). */
function withCommand<T extends object>(event: T, command: PropertyDescriptor | undefined): T {
  return command === undefined ? event : Object.defineProperty(event, 'command', command);
}

/** The start's fields without reading its `command` (a spread would run the redaction). */
function startFields(start: ToolCallStart): Omit<ToolCallStart, 'command'> {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(start)) if (key !== 'command') fields[key] = start[key as keyof ToolCallStart];
  return fields as unknown as Omit<ToolCallStart, 'command'>;
}

interface CallEnding {
  readonly rawArgs: unknown;
  readonly result: ToolResult;
  /** What the policy decided, as the planner handed it to the call (absent: the call was never planned). */
  readonly plan: CallPlan | undefined;
  readonly ctx: CallContext;
  readonly durationMs: number;
}

/** The end event: the start's fields plus what the result and the call's providers tell. */
export function callEnd(source: ObservationSource, start: ToolCallStart, ending: CallEnding): ToolCallEnd {
  const value = isRecord(ending.result.value) ? ending.result.value : {};
  const approvals = approvalsOf(source, ending.ctx.callId);
  const last = approvals.at(-1);
  const plan = ending.plan;
  const verdict = approvals.some((approval) => approval.kind === 'command') ? 'ask' : plan?.verdict;
  const ranMode = typeof value.sandboxMode === 'string' ? (value.sandboxMode as SandboxMode) : (plan?.sandboxMode ?? start.sandboxMode);
  const background = value.kind === 'background' && typeof value.taskId === 'string';
  const end: ToolCallEnd = {
    ...startFields(start),
    ...(ranMode !== undefined ? { sandboxMode: ranMode } : {}),
    outcome: outcomeOf(ending, value, verdict === 'deny' || (last !== undefined && last.decision !== 'allowed-once')),
    exitCode: typeof value.exitCode === 'number' ? value.exitCode : null,
    ...(typeof value.signal === 'string' ? { signal: value.signal } : {}),
    durationMs: Math.round(ending.durationMs * 1000) / 1000,
    outputBytes: outputBytesOf(value),
    leftoversKilled: typeof value.leftoversKilled === 'number' ? value.leftoversKilled : 0,
    ...(verdict !== undefined ? { policyVerdict: verdict } : {}),
    ...(last !== undefined ? { approval: { decision: last.decision, ...(last.answeredBy ? { answeredBy: last.answeredBy } : {}), ...(last.detail ? { detail: last.detail } : {}) } } : {}),
    approvals,
    ...(value.shell === 'persistent' ? { persistentShell: value.shellExited === true || value.shellReset === true ? 'closed' : 'open' } : {}),
    ...(background ? { taskId: value.taskId as string } : {}),
    ...(plan !== undefined ? { plan } : {}),
  };
  return withCommand(end, Object.getOwnPropertyDescriptor(start, 'command'));
}

function outcomeOf(ending: CallEnding, value: Record<string, unknown>, refused: boolean): CallOutcome {
  if (ending.result.isError) {
    if (ending.ctx.signal.aborted) return 'cancelled';
    return refused ? 'denied' : 'error';
  }
  if (value.kind === 'background') {
    return isRecord(ending.rawArgs) && ending.rawArgs.run_in_background === true ? 'ok' : 'promoted';
  }
  if (value.aborted === true) return 'cancelled';
  if (value.timedOut === true) return 'timeout';
  if ((typeof value.exitCode === 'number' && value.exitCode !== 0) || typeof value.signal === 'string') return 'exit_nonzero';
  return 'ok';
}

function outputBytesOf(value: Record<string, unknown>): OutputBytes {
  const bytes = (text: unknown): number => (typeof text === 'string' ? Buffer.byteLength(text) : 0);
  return {
    stdout: bytes(value.stdout),
    stderr: bytes(value.stderr),
    pty: value.shell === 'persistent' ? bytes(value.output) : 0,
    task: value.kind === 'task_output' ? bytes(value.output) : 0,
  };
}

/** The approvals this call asked (the approval service's audit ring, matched by call id), oldest first. */
function approvalsOf(source: ObservationSource, callId: string): CallApproval[] {
  if (!source.isBound(ApprovalService)) return [];
  const records = quietly(() => source.get(ApprovalService).audit()) ?? [];
  const mine: CallApproval[] = [];
  for (const record of records as readonly ApprovalRecord[]) {
    if (record.request.callId !== callId) continue;
    mine.push({
      kind: record.request.kind,
      decision: record.decision,
      ...(record.answeredBy !== undefined ? { answeredBy: record.answeredBy } : {}),
      ...(record.detail !== undefined ? { detail: record.detail } : {}),
      requestedAt: record.requestedAt ?? record.at,
      decidedAt: record.at,
    });
  }
  return mine;
}

/** Redacted whole, then cut: a cut first could split a secret so that the redactor no longer sees it. */
function recordedCommand(source: ObservationSource, command: string): string {
  const redactor = source.isBound(Redactor) ? quietly(() => source.get(Redactor)) : undefined;
  const redacted = redactor?.active ? redactor.redact(command) : command;
  if (redacted.length <= MAX_RECORDED_COMMAND_CHARS) return redacted;
  return `${redacted.slice(0, MAX_RECORDED_COMMAND_CHARS)}…[${redacted.length - MAX_RECORDED_COMMAND_CHARS} more chars]`;
}

function toolNames(source: ObservationSource): Set<string | undefined> {
  return new Set(readContributions(source, ToolClass).map((cls) => getToolMeta(cls)?.name));
}

function quietly<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
