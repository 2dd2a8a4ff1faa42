import { inject, injectable, optional, preDestroy } from 'inversify';
import { TaskRuntime } from '../tasks/task-runtime.js';
import { HostMetrics } from './host-metrics.js';
import type { ToolCallEnd, ToolCallObserver } from './tool-call-observer.js';

/** A custom approval service may return anything: only these decisions become label values. */
const DECISIONS: ReadonlySet<string> = new Set(['allowed-once', 'rejected', 'cancelled', 'unavailable', 'timed-out', 'failed', 'undecided', 'needs-form']);

/** The label of calls to a name no bound tool has: one series, however many names the caller makes up. */
const UNKNOWN_TOOL_LABEL = '(unknown)';

/** Counts every call into the host's metrics (`HostMetrics`). */
@injectable()
export class MetricsObserver implements ToolCallObserver {
  readonly name = 'metrics';
  private unsubscribe?: () => void;

  constructor(
    @inject(HostMetrics) private readonly metrics: HostMetrics,
    @inject(TaskRuntime) @optional() private readonly tasks?: TaskRuntime,
  ) {}

  onCallEnd(end: ToolCallEnd): void {
    const tool = end.knownTool ? end.tool : UNKNOWN_TOOL_LABEL;
    if (end.taskId !== undefined) this.trackTask(end.taskId);
    if (end.persistentShell !== undefined && end.sessionId !== undefined) {
      this.metrics.shellOpen(end.sessionId, end.persistentShell === 'open');
    }
    this.metrics.update((m) => {
      m.toolCalls.inc({ tool, outcome: end.outcome });
      m.toolCallDuration.observe({ tool }, end.durationMs / 1000);
      for (const approval of end.approvals) m.approvals.inc({ outcome: DECISIONS.has(approval.decision) ? approval.decision : 'other' });
      for (const [stream, bytes] of Object.entries(end.outputBytes)) if (bytes > 0) m.outputBytes.inc({ stream }, bytes);
      if (end.leftoversKilled > 0) m.leftoversKilled.inc(end.leftoversKilled);
    });
  }

  @preDestroy()
  dispose(): void {
    this.unsubscribe?.();
  }

  /** A task is running from the call that started it until the runtime reports it done. */
  private trackTask(taskId: string): void {
    if (!this.tasks) return;
    this.unsubscribe ??= this.tasks.onTaskDone((event) => this.metrics.taskEnded(event.snapshot.id));
    this.metrics.taskStarted(taskId);
  }
}
