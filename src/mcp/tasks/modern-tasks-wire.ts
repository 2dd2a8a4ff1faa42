import { MissingRequiredClientCapabilityError, type ClientCapabilities } from '@modelcontextprotocol/server';
import type { TaskSnapshot } from '../../providers/tasks/task-runtime.js';
import { mcpStatusOf, TASK_POLL_INTERVAL_MS, type McpTaskStatus } from './mcp-tasks-wire.js';

/*
 * The 2026-07-28 Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663)
 * as this server speaks it: the extension id, who declared it, the flat Task
 * shape and the errors that differ from the 2025-11-25 wire. Pure functions;
 * modern-tasks.ts does the serving.
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The envelope key that carries a 2026-07-28 request's own client capabilities. */
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** A task as `tools/call` (resultType `task`) and `tasks/get` carry it: flat, `ttlMs` and `pollIntervalMs`. */
export interface ModernTask {
  readonly taskId: string;
  readonly status: McpTaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** Null: kept as long as the session its handle names, not for a fixed time. */
  readonly ttlMs: null;
  readonly pollIntervalMs: number;
}

/** Whether a capabilities object names the extension (an object under `extensions`). */
export function declaresTasksExtension(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  const declared = typeof extensions === 'object' && extensions !== null ? (extensions as Record<string, unknown>)[TASKS_EXTENSION] : undefined;
  return typeof declared === 'object' && declared !== null;
}

/** The capabilities a 2026-07-28 request declared in its `_meta` envelope (never inferred from earlier requests). */
export function envelopeCapabilities(envelope: unknown): ClientCapabilities | undefined {
  const value = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_KEY];
  return typeof value === 'object' && value !== null ? (value as ClientCapabilities) : undefined;
}

/**
 * The runtime's status in the extension's words. Unlike 2025-11-25, `failed`
 * is only for a JSON-RPC error: a command that exited non-zero still
 * completed with a result (the `[status: failed, exit code: N]` line in it).
 */
export function modernStatusOf(snapshot: TaskSnapshot): McpTaskStatus {
  const status = mcpStatusOf(snapshot);
  return status === 'failed' ? 'completed' : status;
}

export function toModernTask(taskId: string, snapshot: TaskSnapshot): ModernTask {
  const message = snapshot.status === 'stopping' ? 'stopping' : snapshot.detail;
  return {
    taskId,
    status: modernStatusOf(snapshot),
    ...(message !== undefined ? { statusMessage: message } : {}),
    createdAt: new Date(snapshot.startedAt).toISOString(),
    lastUpdatedAt: new Date(snapshot.endedAt ?? snapshot.startedAt).toISOString(),
    ttlMs: null,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

/** `tasks/*` from a request that did not declare the extension: -32021 naming it. */
export function missingTasksExtension(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities },
    `Missing required client capability: extension "${TASKS_EXTENSION}"`,
  );
}
