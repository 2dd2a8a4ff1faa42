import type { Redactor } from '../../output-filter/redactor.js';
import type { BackgroundProcess, OutputDelta, ProcessOutcome } from '../shell/shell-executor.js';
import type { ContainerEngine } from './container-engine.js';
import { readRunEnd, readRunOutput, stopDetached, type RunOffsets } from './detached-task-files.js';
import type { DetachedRun } from './detached-task.js';

/** How often a handle looks for its command's status file. */
const POLL_MS = 200;

/**
 * The handle `start` returns for a shared session's background command
 * (detached-task.ts): its output and end are read from the run's files, so
 * a task runtime can hand `detached` to any replica. Reads consume, in this
 * handle only (a shared task runtime keeps its own offsets beside the files).
 */
export class DetachedBackgroundProcess implements BackgroundProcess {
  readonly pid = undefined;
  readonly done: Promise<ProcessOutcome>;
  private offsets: RunOffsets = { out: 0, err: 0 };
  private ended = false;

  constructor(
    readonly detached: DetachedRun,
    private readonly engine: ContainerEngine,
    private readonly limits: { readonly maxOutputBytes: number; readonly graceMs: number },
    private readonly redactor?: Redactor,
  ) {
    this.done = new Promise<ProcessOutcome>((resolve) => {
      const look = (): void => {
        const end = readRunEnd(detached);
        if (end === undefined) return void setTimeout(look, POLL_MS).unref();
        this.ended = true;
        resolve(end.outcome);
      };
      look();
    });
  }

  get finished(): boolean {
    return this.ended;
  }

  readOutput(): OutputDelta {
    const final = readRunEnd(this.detached) !== undefined;
    const { delta, offsets } = readRunOutput(this.detached, this.offsets, final, this.limits.maxOutputBytes, this.redactor);
    this.offsets = offsets;
    return delta;
  }

  kill(): Promise<boolean> {
    return stopDetached(this.engine, this.detached, this.limits.graceMs);
  }
}

/** Whether a task producer's answer is a detached command's handle. */
export function isDetached(value: unknown): value is DetachedBackgroundProcess {
  return value instanceof DetachedBackgroundProcess;
}
