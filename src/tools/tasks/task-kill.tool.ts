import { inject, optional } from 'inversify';
import { Tool } from '../../core/tool.decorator.js';
import {
  textResult,
  ToolError,
  type CallContext,
  type ToolResult,
} from '../../core/tool-contract.js';
import { TaskRuntime, type TaskStatus } from '../../providers/tasks/task-runtime.js';
import { TaskKillArgs } from './task-args.js';
import { TaskCompletionNotifier } from './task-completion-notifier.js';
import { statusText, unknownTaskMessage } from './task-format.js';
import { TASK_KILL_OUTPUT_SCHEMA } from './task-output-schemas.js';
import { TaskTool } from './task-tool.js';

/** Typed value of a `task_kill` result. */
export interface TaskKillValue {
  readonly kind: 'task_kill';
  readonly taskId: string;
  /** True when the task had settled before this call: nothing was killed. */
  readonly alreadyFinished: boolean;
  readonly status: TaskStatus;
  readonly detail?: string;
}

/**
 * `task_kill`: requests cancellation and returns at once (status `stopping`,
 * then `killed` once the process group is gone). A killed task sends no
 * completion notice: the model asked for its end.
 */
@Tool({
  name: 'task_kill',
  title: 'Stop a background task',
  // Kills a process group; a second kill of the same task changes nothing more.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  outputSchema: TASK_KILL_OUTPUT_SCHEMA,
  description:
    'Stop a background task (its whole process group) whose result no longer matters. Returns at once; ' +
    'task_list or task_output show it as killed once it is gone.',
  args: TaskKillArgs,
})
export class TaskKillTool extends TaskTool<TaskKillArgs> {
  constructor(
    @inject(TaskRuntime) runtime: TaskRuntime,
    @inject(TaskCompletionNotifier) @optional() notifier?: TaskCompletionNotifier,
  ) {
    super(runtime, notifier, true);
  }

  async run(args: TaskKillArgs, ctx: CallContext): Promise<ToolResult<TaskKillValue>> {
    const id = args.task_id;
    await this.runtime.prepare?.(ctx.session);
    const outcome = await this.runtime.kill(ctx.session, id, args.reason);
    if (!outcome) throw new ToolError(unknownTaskMessage(id));
    const { snapshot, alreadyFinished } = outcome;
    const text = alreadyFinished
      ? `task ${id} had already finished [${statusText(snapshot)}]`
      : `requested cancellation of task ${id}`;
    return textResult(text, {
      kind: 'task_kill',
      taskId: id,
      alreadyFinished,
      status: snapshot.status,
      ...(snapshot.detail !== undefined && { detail: snapshot.detail }),
    });
  }
}
