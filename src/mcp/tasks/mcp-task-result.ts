import type { CallToolResult } from '@modelcontextprotocol/server';
import type { DshHost } from '../../container/dsh-host.js';
import type { HostSession } from '../../container/host-session.js';
import { ModelTextFilter } from '../../core/model-text-filter.js';
import { errorResult, textResult, type ToolResult } from '../../core/tool-contract.js';
import { mcpTaskRecordName, type McpTaskStore } from '../../providers/tasks/mcp-task-store.js';
import type { TaskRead, TaskReadMark, TaskRuntime } from '../../providers/tasks/task-runtime.js';
import { taskOutputResult } from '../../tools/tasks/task-output-result.js';
import { toCallToolResult } from '../calls/call-result.js';

/**
 * The `tasks/result` answer of a finished task: exactly what `task_output`
 * tells the model (its output not read yet, a lost-output notice, the
 * `[status: …]` line), so both views say the same. Without the task tools
 * the runtime is read directly. The read consumes the output, so the
 * caller keeps this answer for repeated `tasks/result` requests. `notices`
 * follow the text as a call's notices do.
 */
export async function taskResultOf(session: HostSession, host: DshHost, runtime: TaskRuntime, taskId: string, notices: readonly string[] = []): Promise<CallToolResult> {
  if (hasTaskOutput(host)) {
    return toCallToolResult(await session.call('task_output', { task_id: taskId }), notices);
  }
  const read = runtime.read(session, taskId);
  if (!read) return toCallToolResult(errorResult(`unknown task "${taskId}"`), notices);
  return toCallToolResult(directResult(read), notices);
}

/**
 * The same answer with shared sessions (docs/shared-sessions.md#mcp-tasks),
 * alike on every replica and after a restart: the first replica to answer
 * records where its consuming read began (`<task>.result`, no output) and
 * reads as above; every later answer reads the task's files again from
 * there, consuming nothing. `mcpTaskId` names the record; `taskId` is the
 * runtime's id.
 */
export async function sharedTaskResultOf(
  store: McpTaskStore,
  session: HostSession,
  host: DshHost,
  runtime: TaskRuntime,
  ids: { readonly mcpTaskId: string; readonly taskId: string },
  notices: readonly string[] = [],
): Promise<CallToolResult> {
  const mark = runtime.readMark?.(session, ids.taskId);
  if (mark === undefined || runtime.reread === undefined) return taskResultOf(session, host, runtime, ids.taskId, notices);
  const { kept, written } = await store.putOnce(session, mcpTaskRecordName(ids.mcpTaskId, 'result'), { mark });
  if (written) return taskResultOf(session, host, runtime, ids.taskId, notices);
  const read = runtime.reread(session, ids.taskId, kept.mark as TaskReadMark);
  if (!read) return toCallToolResult(errorResult(`unknown task "${ids.taskId}"`), notices);
  const shown = hasTaskOutput(host) ? taskOutputResult(ids.taskId, read) : directResult(read);
  return toCallToolResult(filtered(host, shown), notices);
}

function hasTaskOutput(host: DshHost): boolean {
  return host.tools().some((tool) => tool.name === 'task_output');
}

function directResult(read: TaskRead): ToolResult {
  const detail = read.snapshot.detail === undefined ? '' : `, ${read.snapshot.detail}`;
  return textResult(`${read.text}\n[status: ${read.snapshot.status}${detail}]`);
}

/** What the host's model-text filter makes of a result (as every call's result passes it). */
function filtered<V>(host: DshHost, result: ToolResult<V>): ToolResult<V> {
  if (!host.isBound(ModelTextFilter)) return result;
  const filter = host.get(ModelTextFilter);
  return filter.active ? filter.filterResult(result) : result;
}
