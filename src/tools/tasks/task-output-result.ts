import { textResult, type ToolResult } from '../../core/tool-contract.js';
import type { TaskRead, TaskStatus } from '../../providers/tasks/task-runtime.js';
import { lossNotice, statusLine } from './task-format.js';

/** Typed value of a `task_output` result. */
export interface TaskOutputValue {
  readonly kind: 'task_output';
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly detail?: string;
  /** The delta exactly as read (empty when there was nothing new). */
  readonly output: string;
  /** True when part of this delta was dropped from memory. */
  readonly lost: boolean;
  readonly spillPaths: readonly string[];
}

/**
 * What `task_output` answers for one read of a task: the output (or
 * `(no new output)`), a loss notice, then the status line. Also how an MCP
 * task's kept result is shown again from a read that consumed nothing.
 */
export function taskOutputResult(id: string, read: TaskRead): ToolResult<TaskOutputValue> {
  const lines: string[] = [];
  const output = read.text.length > 0 ? read.text : '(no new output)';
  lines.push(output.endsWith('\n') ? output.slice(0, -1) : output);
  if (read.lost) lines.push(lossNotice(read.spillPaths));
  lines.push(statusLine(read.snapshot));

  const { status, detail } = read.snapshot;
  return textResult(lines.join('\n'), {
    kind: 'task_output',
    taskId: id,
    status,
    ...(detail !== undefined && { detail }),
    output: read.text,
    lost: read.lost,
    spillPaths: read.spillPaths,
  });
}
