import type { CallToolResult } from '@modelcontextprotocol/server';
import type { DshHost } from '../../container/dsh-host.js';
import type { HostSession } from '../../container/host-session.js';
import { errorResult, textResult } from '../../core/tool-contract.js';
import type { TaskRuntime } from '../../providers/tasks/task-runtime.js';
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
  if (host.tools().some((tool) => tool.name === 'task_output')) {
    return toCallToolResult(await session.call('task_output', { task_id: taskId }), notices);
  }
  const read = runtime.read(session, taskId);
  if (!read) return toCallToolResult(errorResult(`unknown task "${taskId}"`), notices);
  const detail = read.snapshot.detail === undefined ? '' : `, ${read.snapshot.detail}`;
  return toCallToolResult(textResult(`${read.text}\n[status: ${read.snapshot.status}${detail}]`), notices);
}
