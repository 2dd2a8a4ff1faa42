import { inject, injectable, optional } from 'inversify';
import { Logger } from '../../providers/logging/logger.js';
import type { TaskDoneEvent, TaskRuntime } from '../../providers/tasks/task-runtime.js';
import { completionNotice, noticeKey } from './task-format.js';
import { messageOf } from '../../core/describe-value.js';

/**
 * Sends the owning session one notice when a task settles and the model does
 * not know yet (not killed by it, not read or waited to the end). One
 * singleton per container; the task tools `attach` their runtime, which is
 * idempotent, so three tool instances still mean one subscription — and a
 * swapped runtime gets its own.
 */
@injectable()
export class TaskCompletionNotifier {
  private readonly subscriptions = new Map<TaskRuntime, () => void>();

  constructor(@inject(Logger) @optional() private readonly logger?: Logger) {}

  /** Subscribes to `runtime` unless already subscribed. */
  attach(runtime: TaskRuntime): void {
    if (this.subscriptions.has(runtime)) return;
    this.subscriptions.set(
      runtime,
      runtime.onTaskDone((event) => this.onTaskDone(event)),
    );
  }

  /** Unsubscribes from every runtime. */
  dispose(): void {
    for (const unsubscribe of this.subscriptions.values()) unsubscribe();
    this.subscriptions.clear();
  }

  private onTaskDone(event: TaskDoneEvent): void {
    const owner = event.owner;
    if (!owner || event.reported || owner.disposed) return;
    try {
      owner.notify(completionNotice(event.snapshot), noticeKey(event.snapshot.id));
    } catch (error) {
      this.logger?.warn(
        `task ${event.snapshot.id}: completion notice failed: ${messageOf(error)}`,
      );
    }
  }
}
