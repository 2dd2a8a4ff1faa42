import { mcpTaskRecordName, type McpTaskStore } from '../../providers/tasks/mcp-task-store.js';
import { handleNotice } from '../sessions/session-handles.js';
import type { ModernTaskEntry } from './modern-task-entry.js';
import { openHandle, sealHandle } from './sealed-handle.js';

/*
 * A 2026-07-28 task's shared record (docs/shared-sessions.md#mcp-tasks):
 * what another replica needs to serve `tasks/get` with nothing but the
 * task id — whose it is, the runtime's id, and the handle of its session,
 * sealed by the task id (sealed-handle.ts). Named by the id's hash.
 */

interface SharedModernTask {
  readonly era: 'modern';
  /** The token name that made it; null when the server identifies nobody. */
  readonly caller: string | null;
  readonly runtimeId: string;
  readonly sealedHandle: string;
  /** The call minted the handle: its final result repeats the handle notice. */
  readonly minted: boolean;
}

/** The record of a task handed over here: its name and value, for `McpTaskStore.put`. */
export function recordSharedModernTask(
  taskId: string,
  over: { readonly caller: string | undefined; readonly handle: string; readonly handleNotice?: string; readonly runtimeId: string },
): [string, SharedModernTask] {
  const value: SharedModernTask = {
    era: 'modern',
    caller: over.caller ?? null,
    runtimeId: over.runtimeId,
    sealedHandle: sealHandle(taskId, over.handle),
    minted: over.handleNotice !== undefined,
  };
  return [mcpTaskRecordName(taskId, 'task'), value];
}

/** The task `taskId` names when `caller` made it; undefined alike for no record, another caller's, or a seal that does not open. */
export async function findSharedModernTask(store: McpTaskStore, taskId: string, caller: string | undefined): Promise<ModernTaskEntry | undefined> {
  const record = await store.find<Partial<SharedModernTask>>(mcpTaskRecordName(taskId, 'task'));
  if (record?.era !== 'modern' || record.caller !== (caller ?? null) || typeof record.runtimeId !== 'string') return undefined;
  const handle = openHandle(taskId, record.sealedHandle);
  if (handle === undefined) return undefined;
  return { caller, handle, runtimeId: record.runtimeId, session: undefined, ...(record.minted === true ? { handleNotice: handleNotice(handle) } : {}) };
}
