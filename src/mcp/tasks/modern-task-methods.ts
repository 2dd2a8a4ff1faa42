import type { CallToolResult, Server, ServerContext, StandardSchemaV1 } from '@modelcontextprotocol/server';
import type { HostSession } from '../../container/host-session.js';
import { TASK_ID_PARAMS } from './mcp-tasks-wire.js';
import type { ModernTasks } from './modern-tasks.js';
import { handleNotice } from '../sessions/session-handles.js';
import { declaresTasksExtension, envelopeCapabilities, missingTasksExtension, TASKS_EXTENSION } from './modern-tasks-wire.js';

/** Whether this 2026-07-28 request declared the tasks extension in its own envelope. */
function requestDeclaresTasks(ctx: ServerContext): boolean {
  return declaresTasksExtension(envelopeCapabilities(ctx.mcpReq.envelope));
}

/**
 * Serves the extension on one request's `Server` for `caller`: the extension
 * in `server/discover`, and `tasks/get`, `tasks/cancel`, `tasks/update` (no
 * `tasks/list`: the extension has none) for a request that declared it;
 * -32021 naming the extension for one that did not. A `tools/call` that does
 * not declare it is answered exactly as before.
 */
export function serveModernTasks(server: Server, tasks: ModernTasks, caller: string | undefined): void {
  // Advertised to every discover request: it tells a client what it may declare (the extension is opt-in per request).
  server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } } as Parameters<Server['registerCapabilities']>[0]);
  // Methods outside the SDK's typed map: registered with their params schema, as the 2025 task methods are.
  const on = server.setRequestHandler.bind(server) as unknown as <P>(
    method: string,
    schemas: { params: StandardSchemaV1<unknown, P> },
    handler: (params: P, ctx: ServerContext) => Promise<unknown>,
  ) => void;
  const served = <T>(ctx: ServerContext, answer: () => Promise<T>): Promise<T> =>
    requestDeclaresTasks(ctx) ? answer() : Promise.reject(missingTasksExtension());
  on('tasks/get', { params: TASK_ID_PARAMS }, ({ taskId }, ctx) => served(ctx, () => tasks.get(taskId, caller)));
  on('tasks/cancel', { params: TASK_ID_PARAMS }, ({ taskId }, ctx) => served(ctx, () => tasks.cancel(taskId, caller)));
  // The SDK takes `inputResponses` out of the params (ctx.mcpReq.inputResponses): only the id is left to check.
  on('tasks/update', { params: TASK_ID_PARAMS }, ({ taskId }, ctx) => served(ctx, () => tasks.update(taskId, caller)));
}

/** `tools/call`: for a declaring request, a call that started a background task answers as that task. */
export async function asTaskIfStarted(
  tasks: ModernTasks | undefined,
  ctx: ServerContext,
  result: CallToolResult,
  over: { caller: string | undefined; handle: unknown; minted: string | undefined; session: HostSession },
): Promise<CallToolResult> {
  const handle = over.minted ?? over.handle;
  if (!tasks || !requestDeclaresTasks(ctx) || typeof handle !== 'string') return result;
  return tasks.handOver(result, {
    caller: over.caller,
    handle,
    session: over.session,
    ...(over.minted !== undefined ? { handleNotice: handleNotice(over.minted) } : {}),
  });
}
