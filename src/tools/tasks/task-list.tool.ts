import { inject, optional } from 'inversify';
import { Tool } from '../../core/tool.decorator.js';
import {
  textResult,
  type CallContext,
  type ToolResult,
} from '../../core/tool-contract.js';
import { TaskRuntime, type TaskSnapshot } from '../../providers/tasks/task-runtime.js';
import { TaskListArgs } from './task-args.js';
import { TaskCompletionNotifier } from './task-completion-notifier.js';
import { listLine } from './task-format.js';
import { TASK_LIST_OUTPUT_SCHEMA } from './task-output-schemas.js';
import { TaskTool } from './task-tool.js';

/** Typed value of a `task_list` result. */
export interface TaskListValue {
  readonly kind: 'task_list';
  readonly tasks: readonly TaskSnapshot[];
}

/** `task_list`: the calling session's tasks (and unowned ones), oldest first. */
@Tool({
  name: 'task_list',
  title: 'List background tasks',
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  outputSchema: TASK_LIST_OUTPUT_SCHEMA,
  description: 'List your background tasks, one per line: id, kind, status and what it runs.',
  args: TaskListArgs,
})
export class TaskListTool extends TaskTool<TaskListArgs> {
  constructor(
    @inject(TaskRuntime) runtime: TaskRuntime,
    @inject(TaskCompletionNotifier) @optional() notifier?: TaskCompletionNotifier,
  ) {
    super(runtime, notifier, false);
  }

  async run(_args: TaskListArgs, ctx: CallContext): Promise<ToolResult<TaskListValue>> {
    await this.runtime.prepare?.(ctx.session);
    const tasks = this.runtime.list(ctx.session);
    const text = tasks.length > 0 ? tasks.map(listLine).join('\n') : '(no background tasks)';
    return textResult(text, { kind: 'task_list', tasks });
  }
}
