import type { Redactor } from '../output-filter/redactor.js';
import { readRunOutput, type RunOffsets } from '../exec/engine/detached-task-files.js';
import type { SharedTaskRecords } from './shared-task-records.js';
import type { Run } from './shared-task-snapshot.js';
import type { TaskRead, TaskSnapshot } from './task-runtime.js';

/** `read.json`: how far reads of a shared task got (docs/shared-sessions.md#tasks). */
export interface ReadState extends RunOffsets {
  /** A start error was shown (a command that never ran shows it as its output, once). */
  readonly errorShown?: boolean;
}

/**
 * What a read of a recorded task from `from` shows, and where the next read
 * starts; writes nothing, so the caller decides whether it consumes (a read)
 * or not (a kept result shown again).
 */
export function readSharedTask(
  store: SharedTaskRecords,
  id: string,
  snapshot: TaskSnapshot,
  from: ReadState,
  maxOutputBytes: number,
  redactor?: Redactor,
): { readonly read: TaskRead; readonly next: ReadState } {
  // The caller took the status first: a task that had ended before this read has all its output in the files.
  const terminal = snapshot.status !== 'running' && snapshot.status !== 'stopping';
  const run = store.read<Run>(id, 'run.json');
  let next: ReadState = from;
  let text = '';
  let lost = false;
  let spillPaths: readonly string[] = [];
  if (run !== undefined) {
    const { delta, offsets } = readRunOutput(run, from, terminal, maxOutputBytes, redactor);
    ({ text, lost, spillPaths } = delta);
    next = { ...from, ...offsets };
  }
  const error = snapshot.outcome?.error;
  // A detached command that never ran (an unusable workdir) shows why as its output, once, as a local handle does.
  if (terminal && error !== undefined && text === '' && run !== undefined && run.relay === undefined && from.errorShown !== true) {
    text = error;
    next = { ...next, errorShown: true };
  }
  return { read: Object.freeze({ snapshot, text, lost, spillPaths: Object.freeze([...spillPaths]) }), next };
}

/** A read mark as `readMark` hands it out and `reread` takes it back (JSON, kept in the MCP task's record). */
export function readStateOf(mark: unknown): ReadState | undefined {
  const value = mark as Partial<ReadState> | undefined;
  if (typeof value !== 'object' || value === null || !Number.isSafeInteger(value.out) || !Number.isSafeInteger(value.err)) return undefined;
  return { out: value.out!, err: value.err!, ...(value.errorShown === true ? { errorShown: true } : {}) };
}
