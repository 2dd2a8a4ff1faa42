import { ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, type ClientCapabilities, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import type { TaskSnapshot } from '../../providers/tasks/task-runtime.js';

export { clientDeclaresTasks, SERVER_TASK_CAPABILITIES, taskCapabilitiesFor } from './task-capabilities.js';

/*
 * The 2025-11-25 task vocabulary as this server speaks it: the Task object,
 * the status mapping from the task runtime, the `task` parameter's ttl and
 * the exact JSON-RPC errors. Pure functions; mcp-tasks.ts does the serving.
 */

export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as `tasks/get`, `tasks/list`, `tasks/cancel` and the status notification carry it. */
export interface McpTask {
  readonly taskId: string;
  readonly status: McpTaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly ttl: number;
  readonly pollInterval: number;
}

/** How long a task is kept when the client names no ttl, and the longest it may ask for (ms). */
export const DEFAULT_TASK_TTL_MS = 3_600_000;
export const MAX_TASK_TTL_MS = 86_400_000;
/** What the server suggests between two `tasks/get` polls (ms). */
export const TASK_POLL_INTERVAL_MS = 1_000;

/** Terminal in MCP terms: no further status change, `tasks/result` answers at once. */
export function isTerminal(status: McpTaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * The runtime's status in MCP words. `stopping` (a kill on its way) is still
 * `working`: the process may yet settle on its own first, and a terminal
 * MCP status must never change again.
 */
export function mcpStatusOf(snapshot: TaskSnapshot): McpTaskStatus {
  switch (snapshot.status) {
    case 'running':
    case 'stopping':
      return 'working';
    case 'completed':
      return 'completed';
    case 'killed':
      return 'cancelled';
    default:
      return 'failed';
  }
}

export function toMcpTask(snapshot: TaskSnapshot, ttl: number, status: McpTaskStatus = mcpStatusOf(snapshot)): McpTask {
  const message = snapshot.status === 'stopping' ? 'stopping' : snapshot.detail;
  return {
    taskId: snapshot.id,
    status,
    ...(message !== undefined ? { statusMessage: message } : {}),
    createdAt: new Date(snapshot.startedAt).toISOString(),
    lastUpdatedAt: new Date(snapshot.endedAt ?? snapshot.startedAt).toISOString(),
    ttl,
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
}

/** The ttl granted for a `task` parameter: absent → the default, above the maximum → the maximum; nonsense → -32602. */
export function grantedTtl(task: unknown): number {
  if (typeof task !== 'object' || task === null || Array.isArray(task)) {
    throw invalidParams('task must be an object such as {"ttl": 60000}');
  }
  const ttl = (task as { ttl?: unknown }).ttl;
  if (ttl === undefined || ttl === null) return DEFAULT_TASK_TTL_MS;
  if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0) {
    throw invalidParams(`task.ttl must be a non-negative number of milliseconds, got ${JSON.stringify(ttl)}`);
  }
  return Math.min(Math.floor(ttl), MAX_TASK_TTL_MS);
}

function invalidParams(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

/** Unknown, foreign, and forgotten ids all read the same: nothing tells a guess from another session's task. */
export function taskNotFound(taskId: string): ProtocolError {
  return invalidParams(`Failed to retrieve task: Task not found: ${JSON.stringify(taskId)}`);
}

export function notCancellable(status: McpTaskStatus): ProtocolError {
  return invalidParams(`Cannot cancel task: already in terminal status '${status}'`);
}

export function taskNotSupported(tool: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.MethodNotFound, `Tool "${tool}" does not support task-augmented execution`);
}

/** `_meta` that ties a result to its task. */
export function relatedTaskMeta(taskId: string): Record<string, unknown> {
  return { [RELATED_TASK_META_KEY]: { taskId } };
}

/** `{ taskId: string }` params, checked so a bad one answers -32602 (the SDK prefixes the method). */
export const TASK_ID_PARAMS = paramsSchema<{ taskId: string }>((params) =>
  typeof params.taskId === 'string' && params.taskId.length > 0 ? undefined : 'taskId must be a non-empty string',
);

/** `tasks/list` params: this server never hands out a cursor, so any cursor is invalid. */
export const LIST_PARAMS = paramsSchema<{ cursor?: string }>((params) =>
  params.cursor === undefined ? undefined : `unknown cursor ${JSON.stringify(params.cursor)}`,
);

function paramsSchema<T>(problem: (params: Record<string, unknown>) => string | undefined): StandardSchemaV1<unknown, T> {
  return {
    '~standard': {
      version: 1,
      vendor: 'dsh-tools',
      validate: (value: unknown) => {
        const params = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
        const message = problem(params);
        return message === undefined ? { value: params as T } : { issues: [{ message }] };
      },
    },
  };
}
