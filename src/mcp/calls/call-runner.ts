import type { CallToolResult, Notification, ProgressToken, ServerContext } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import type { HostSession } from '../../container/host-session.js';
import { rememberClientTrace } from '../../providers/observability/client-trace.js';
import { errorResult, type ToolProgress, type ToolResult } from '../../core/tool-contract.js';
import type { Logger } from '../../providers/logging/logger.js';
import type { CallGate } from './call-gate.js';
import { toCallToolResult } from './call-result.js';
import { withHeartbeat } from '../transport/progress-heartbeat.js';
import type { SessionSpills } from './spill-resources.js';
import { requestCallInfo } from './request-call-info.js';

/** Sends one notification that belongs to the call being answered. */
type SendNotification = (notification: Notification) => Promise<void>;

interface CallRunnerDeps {
  readonly logger?: Logger;
  readonly callGate?: CallGate;
  /** Aborted by a drain that ran out of time: unlike the client's cancel, the answer is still sent. */
  readonly cancelled: AbortSignal;
  /** Heartbeat interval of a quiet call that asked for progress (`--heartbeat-interval`); 0 or absent: none. */
  readonly heartbeatMs?: number;
}

/** What one `tools/call` needs from the request: its signal, progress token and notification channel. */
export interface CallRequest {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly ctx: ServerContext;
  readonly progressToken?: ProgressToken;
  /** The 2025-11-25 `task` parameter (task-augmented call), served by mcp-tasks.ts. */
  readonly task?: unknown;
  /** The host call id to use (an approval asked by the call is found by it). */
  readonly callId?: string;
}

/**
 * Runs one tool call as `session`: waits for a place at the call gate,
 * forwards progress, and returns the host result (or the gate's refusal)
 * together with whether the client cancelled it (its reply is then never
 * sent, so its notices stay for the next call).
 */
export async function runCall(session: HostSession, call: CallRequest, deps: CallRunnerDeps): Promise<{ result: ToolResult; clientCancelled: boolean }> {
  const started = performance.now();
  const clientSignal = call.ctx.mcpReq.signal;
  const signal = AbortSignal.any([clientSignal, deps.cancelled]);
  // Progress still on its way when the call ends is awaited first: a notification after the result names a token the client forgot.
  const inFlight = new Set<Promise<void>>();
  const notify: SendNotification = (notification) => {
    const sent: Promise<void> = call.ctx.mcpReq.notify(notification).finally(() => inFlight.delete(sent));
    inFlight.add(sent);
    return sent;
  };
  const toClient = call.progressToken === undefined ? undefined : progressForwarder(call.progressToken, notify);
  // A client that cancelled (or timed out) has forgotten the token: nothing more is sent for it.
  const forward = toClient && ((progress: ToolProgress) => clientSignal.aborted || toClient(progress));
  // The heartbeat starts before the call gate: a call queued behind others is quiet too.
  const result = await withHeartbeat(deps.heartbeatMs ?? 0, forward, async (onProgress): Promise<ToolResult> => {
    const admitted = deps.callGate ? await deps.callGate.acquire(signal, session.caller) : undefined;
    if (admitted !== undefined && typeof admitted !== 'function') return errorResult(admitted.refused);
    const callId = call.callId ?? randomUUID();
    const forget = rememberClientTrace(callId, traceParentOf(call.ctx));
    try {
      return await session.call(call.name, call.args, { ...requestCallInfo(call.ctx, callId), signal, onProgress });
    } finally {
      forget();
      admitted?.();
    }
  });
  await Promise.allSettled([...inFlight]);
  const outcome = clientSignal.aborted ? 'cancelled' : result.isError ? 'error' : 'ok';
  deps.logger?.debug(`mcp ${session.id}: ${call.name} → ${outcome} in ${Math.round(performance.now() - started)} ms`);
  return { result, clientCancelled: clientSignal.aborted };
}

/**
 * The client's trace for the call: `_meta.traceparent` (the call's own),
 * else the HTTP request's `traceparent` header (what an instrumented HTTP
 * client sends with every request).
 */
function traceParentOf(ctx: ServerContext): unknown {
  return ctx.mcpReq._meta?.traceparent ?? ctx.http?.req?.headers.get('traceparent') ?? undefined;
}

/** The MCP result of a finished call: the session's pending notices (and `extra` lines) follow the text. */
export function answerOf(
  session: HostSession,
  ran: { result: ToolResult; clientCancelled: boolean },
  extra: readonly string[] = [],
  spills?: SessionSpills,
): CallToolResult {
  // A cancelled call's reply is never sent: keep the notices for the next one.
  const notices = ran.clientCancelled ? [] : session.takeNotices();
  return toCallToolResult(ran.result, [...notices, ...extra], spills) as CallToolResult;
}

/**
 * Progress as MCP wants it: `progress` must grow, so a report without new
 * bytes is dropped. The tools throttle their reports already.
 */
function progressForwarder(token: ProgressToken, send: SendNotification): (progress: ToolProgress) => void {
  let last = 0;
  return (progress) => {
    if (!(progress.bytes > last)) return;
    last = progress.bytes;
    sendProgress(token, send, progress.bytes, progress.lastLine);
  };
}

/** Sends one progress notification for a call (the heartbeat sends through here too). */
function sendProgress(token: ProgressToken, send: SendNotification, progress: number, message?: string): void {
  send({
    method: 'notifications/progress',
    params: { progressToken: token, progress, ...(message ? { message } : {}) },
  }).catch(() => undefined);
}
