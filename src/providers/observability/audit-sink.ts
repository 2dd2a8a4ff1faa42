import type { ServiceIdentifier } from 'inversify';
import type { ApprovalDecision } from '../policy/approval/approval-service.js';
import type { SandboxMode } from '../../core/sandbox-mode.js';
import type { CallMode, CallOutcome, OutputBytes, PolicyVerdict, ToolCallEnd } from './tool-call-observer.js';

/** One audit record: one finished tool call. Plain JSON data; never the command's output. */
export interface AuditRecord {
  /** ISO 8601 time the call started. */
  readonly time: string;
  readonly callId: string;
  /** The token name the session was opened with; null without one. */
  readonly caller: string | null;
  readonly session: string | null;
  /** The session id the client and its proxy log (`Mcp-Session-Id`, or a 2026-07-28 session handle); null on stdio. */
  readonly clientSession: string | null;
  /** The client's address (HTTP); null on stdio. */
  readonly peer: string | null;
  readonly tool: string;
  /** Redacted; null for tools without a command. */
  readonly command: string | null;
  readonly workdir: string | null;
  readonly mode: CallMode;
  readonly sandboxMode: SandboxMode | null;
  /** Null when no command rule was consulted. */
  readonly policy: PolicyVerdict | null;
  /** Null when nobody was asked. */
  readonly approval: ApprovalDecision | null;
  readonly answeredBy: string | null;
  /** Why the approver failed, when it did (`approval` is then `failed`). */
  readonly approvalDetail: string | null;
  readonly outcome: CallOutcome;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly durationMs: number;
  readonly outputBytes: OutputBytes;
  readonly leftoversKilled: number;
  readonly taskId: string | null;
}

/**
 * What the server did that is not a tool call but an operator audits too
 * (docs/operations.md, "Audit log"): an HTTP request it refused, and a
 * session it ended with its tasks. Each record names itself in `event`; a
 * record without `event` is a finished call.
 */
export type AuditEvent = HttpRefusalEvent | SessionEndedEvent | OperatorActionEvent;

/** What an operator did in the console (`serve --console`) that is not an approval: a task killed. */
interface OperatorActionEvent {
  readonly event: 'operator_action';
  readonly time: string;
  /** The operator token's name. */
  readonly operator: string;
  readonly action: 'kill_task';
  readonly session: string;
  readonly caller: string | null;
  readonly taskId: string;
  /** `killed`, or `already finished`. */
  readonly result: string;
}

interface HttpRefusalEvent {
  readonly event: 'auth_failure' | 'http_refused';
  /** ISO 8601. */
  readonly time: string;
  readonly status: number;
  readonly method: string;
  /** Without the query. */
  readonly path: string;
  readonly peer: string | null;
}

interface SessionEndedEvent {
  readonly event: 'session_ended';
  readonly time: string;
  /** idle: abandoned; lifetime: `--session-lifetime` is over; evicted: made room at a cap. */
  readonly reason: 'idle' | 'lifetime' | 'evicted';
  /** The id the client and its proxy log (`Mcp-Session-Id`, or a 2026-07-28 handle). */
  readonly clientSession: string;
  readonly session: string;
  readonly caller: string | null;
  /** Whether background tasks were still running (they ended with it). */
  readonly withRunningTasks: boolean;
}

/** The audit record of a finished call. */
export function auditRecordOf(end: ToolCallEnd): AuditRecord {
  return {
    time: new Date(end.time).toISOString(),
    callId: end.callId,
    caller: end.caller ?? null,
    session: end.sessionId ?? null,
    clientSession: end.clientSessionId ?? null,
    peer: end.peer ?? null,
    tool: end.tool,
    command: end.command ?? null,
    workdir: end.workdir ?? null,
    mode: end.mode,
    sandboxMode: end.sandboxMode ?? null,
    policy: end.policyVerdict ?? null,
    approval: end.approval?.decision ?? null,
    answeredBy: end.approval?.answeredBy ?? null,
    approvalDetail: end.approval?.detail ?? null,
    outcome: end.outcome,
    exitCode: end.exitCode,
    signal: end.signal ?? null,
    durationMs: end.durationMs,
    outputBytes: end.outputBytes,
    leftoversKilled: end.leftoversKilled,
    taskId: end.taskId ?? null,
  };
}

/**
 * Where audit records go. Multi-bound: every sink gets every record. `write`
 * resolves once the record is stored as durably as the sink promises; a
 * rejection is logged and counted (`dsh_audit_failures_total`) and never
 * fails the call.
 */
export interface AuditSink {
  /** Named in the log when it fails. */
  readonly name: string;
  write(record: AuditRecord): Promise<void>;
  /**
   * A sink that writes a file: close it once the records handed over so far
   * are stored and open its configured path again (SIGHUP after a log
   * rotation, docs/operations.md). Optional.
   */
  reopen?(): Promise<void>;
  /**
   * Stores a server event that is not a call: a refused HTTP request, a
   * session the server ended (`AuditEvent`, named by its `event` field).
   * Optional: a sink without it keeps receiving finished calls only.
   */
  writeEvent?(event: AuditEvent): Promise<void>;
}

export const AuditSink: ServiceIdentifier<AuditSink> = Symbol.for('dsh.AuditSink');
