import { Server, type CallToolResult } from '@modelcontextprotocol/server';
import type { DshHost } from '../../container/dsh-host.js';
import { errorResult } from '../../core/tool-contract.js';
import type { Logger } from '../../providers/logging/logger.js';
import type { ApprovalRoundTrips } from '../approvals/approval-round-trips.js';
import type { CallGate } from '../calls/call-gate.js';
import { toCallToolResult } from '../calls/call-result.js';
import { answerOf, runCall, type CallRequest } from '../calls/call-runner.js';
import { heartbeatIntervalOf } from '../transport/progress-heartbeat.js';
import { SERVER_INFO, serverCapabilities, serverInstructions } from '../sessions/server-info.js';
import { HANDLE_ARGUMENT, handleNotice, type SessionHandles } from '../sessions/session-handles.js';
import { describeSessionClient } from '../../providers/observability/session-client.js';
import { registerToolHandlers } from '../calls/tool-handlers.js';
import { asTaskIfStarted, serveModernTasks } from '../tasks/modern-task-methods.js';
import { ModernTasks } from '../tasks/modern-tasks.js';

/** How the tools describe their `session` argument to the model. */
const HANDLE_DESCRIPTION =
  'The session handle (dsh-s-…) an earlier result named. Pass it to keep using that session\'s persistent shell and background tasks; leave it out to run in a fresh session.';

export interface ModernServerDeps {
  readonly host: DshHost;
  readonly handles: SessionHandles;
  readonly logger?: Logger;
  readonly callGate?: CallGate;
  /** Aborted when a drain runs out of time. */
  readonly cancelled: AbortSignal;
  /** Approvals as `input_required` round trips; without it they pass to the next answerer (fail closed). */
  readonly approvals?: ApprovalRoundTrips;
}

/**
 * A `Server` for 2026-07-28 requests of `caller` (the HTTP token's name;
 * undefined on stdio). It holds nothing between requests: each call runs in
 * the session its `session` argument names, or in a fresh one that is kept
 * under a new handle when it left a shell or background tasks behind.
 */
export function modernServer(deps: ModernServerDeps, caller: string | undefined, peer?: string): Server {
  const instructions = serverInstructions(deps.host);
  // No resources: a stateless request has no session to keep the offered spill links in.
  const server = new Server(SERVER_INFO, { capabilities: serverCapabilities({ resources: false }), ...(instructions ? { instructions } : {}) });
  const run = (call: CallRequest) => callWithHandle(deps, caller, call, peer);
  registerToolHandlers(server, deps.host, (call) => (deps.approvals ? deps.approvals.serve(call, caller, run) : run(call)), (tool) => ({
    ...tool,
    inputSchema: {
      ...tool.inputSchema,
      properties: { ...tool.inputSchema.properties, [HANDLE_ARGUMENT]: { type: 'string', description: HANDLE_DESCRIPTION } },
    },
  }));
  const tasks = ModernTasks.for(deps.host, deps.handles);
  if (tasks) serveModernTasks(server, tasks, caller);
  server.onerror = (error) => deps.logger?.debug(`mcp: ${error.message}`);
  return server;
}

async function callWithHandle(deps: ModernServerDeps, caller: string | undefined, call: CallRequest, peer?: string): Promise<CallToolResult> {
  const { [HANDLE_ARGUMENT]: handle, ...args } = call.args;
  const held = await deps.handles.acquire(handle, caller);
  if (typeof held === 'string') return toCallToolResult(errorResult(held)) as CallToolResult;
  describeSessionClient(held.session, { ...(typeof handle === 'string' ? { sessionId: handle } : {}), ...(peer !== undefined ? { address: peer } : {}) });
  const runDeps = { cancelled: deps.cancelled, heartbeatMs: heartbeatIntervalOf(deps.host), ...(deps.logger ? { logger: deps.logger } : {}), ...(deps.callGate ? { callGate: deps.callGate } : {}) };
  let minted: string | undefined;
  let ran;
  try {
    ran = await runCall(held.session, { ...call, args }, runDeps);
  } finally {
    minted = await held.finish();
  }
  const answer = answerOf(held.session, ran, minted === undefined ? [] : [handleNotice(minted)]);
  // A request that declared the tasks extension gets a started background task as the task itself.
  return asTaskIfStarted(ModernTasks.for(deps.host, deps.handles), call.ctx, answer, { caller, handle, minted, session: held.session });
}
