import { getToolMeta } from '../../core/tool.decorator.js';
import type {
  CallContext,
  CallPresentation,
  ResultPresentation,
  ToolInstance,
  ToolResult,
} from '../../core/tool-contract.js';
import type { TaskRuntime } from '../../providers/tasks/task-runtime.js';
import type { TaskCompletionNotifier } from './task-completion-notifier.js';
import { presentTaskCall, presentTaskResult } from './task-presenters.js';

/**
 * What the three task tools share: the runtime, the one completion notifier
 * (attached on construction; attaching twice is a no-op), and the generic
 * task cards titled with the tool's own name.
 */
export abstract class TaskTool<A> implements ToolInstance<A> {
  protected constructor(
    protected readonly runtime: TaskRuntime,
    notifier: TaskCompletionNotifier | undefined,
    /** Whether a call card needs a `task_id` to be well-formed. */
    private readonly needsTaskId: boolean,
  ) {
    notifier?.attach(runtime);
  }

  abstract run(args: A, ctx: CallContext): Promise<ToolResult>;

  presentCall(args: unknown): CallPresentation | undefined {
    return presentTaskCall(getToolMeta(this.constructor)?.name ?? 'task', args, this.needsTaskId);
  }

  presentResult(result: ToolResult): ResultPresentation | undefined {
    return presentTaskResult(result);
  }
}
