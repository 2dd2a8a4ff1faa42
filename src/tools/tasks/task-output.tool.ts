import { inject, optional } from 'inversify';
import { Tool } from '../../core/tool.decorator.js';
import { ToolError, type CallContext, type ToolResult } from '../../core/tool-contract.js';
import { TaskRuntime } from '../../providers/tasks/task-runtime.js';
import { DEFAULT_WAIT_MS, MAX_WAIT_MS, TaskOutputArgs } from './task-args.js';
import { TaskCompletionNotifier } from './task-completion-notifier.js';
import { noticeKey, unknownTaskMessage } from './task-format.js';
import { taskOutputResult, type TaskOutputValue } from './task-output-result.js';
import { TASK_OUTPUT_OUTPUT_SCHEMA } from './task-output-schemas.js';
import { TaskTool } from './task-tool.js';

export type { TaskOutputValue } from './task-output-result.js';

/**
 * `task_output`: the next unread output of a task, then its status line.
 * Non-blocking unless `wait: true`; a wait that times out leaves the task
 * running. An aborted wait consumes nothing, so no output is lost.
 */
@Tool({
  name: 'task_output',
  title: 'Read background task output',
  // Reads only; not idempotent: each call returns what the previous one did not.
  annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
  outputSchema: TASK_OUTPUT_OUTPUT_SCHEMA,
  description:
    'Read the output a background task produced since your last task_output call for it, followed by a ' +
    '[status: …] line. Returns at once unless wait is true, which blocks until the task finishes or timeout_ms ' +
    'passes (the task keeps running at timeout).',
  args: TaskOutputArgs,
})
export class TaskOutputTool extends TaskTool<TaskOutputArgs> {
  constructor(
    @inject(TaskRuntime) runtime: TaskRuntime,
    @inject(TaskCompletionNotifier) @optional() notifier?: TaskCompletionNotifier,
  ) {
    super(runtime, notifier, true);
  }

  async run(args: TaskOutputArgs, ctx: CallContext): Promise<ToolResult<TaskOutputValue>> {
    const id = args.task_id;
    await this.runtime.prepare?.(ctx.session);
    if (args.wait === true) {
      const timeoutMs = Math.ceil(Math.min(args.timeout_ms ?? DEFAULT_WAIT_MS, MAX_WAIT_MS));
      const waited = await this.runtime.wait(ctx.session, id, timeoutMs, ctx.signal);
      if (!waited) throw new ToolError(unknownTaskMessage(id));
      if (ctx.signal.aborted) throw new ToolError('tool call aborted');
    }
    const read = this.runtime.read(ctx.session, id);
    if (!read) throw new ToolError(unknownTaskMessage(id));
    // This result shows the final status: a queued completion notice would only repeat it.
    const { status: readStatus } = read.snapshot;
    if (readStatus !== 'running' && readStatus !== 'stopping') ctx.session?.withdraw(noticeKey(id));

    return taskOutputResult(id, read);
  }
}
