import type {
  TaskDelta,
  TaskDoneEvent,
  TaskOutcome,
  TaskProcess,
  TaskRuntime,
} from '../../src/providers/tasks/task-runtime.js';
import type { SessionContext } from '../../src/core/tool-contract.js';

/**
 * A controllable TaskProcess: tests push output, drop bytes, and decide when
 * and how it settles. `kill()` settles it with SIGTERM unless `ignoreTerm`
 * (a TERM-trapping process), in which case the test settles it.
 */
export class FakeTaskProcess implements TaskProcess {
  readonly done: Promise<TaskOutcome>;
  killCalls = 0;
  reads = 0;
  ignoreTerm = false;
  private pending = '';
  private lost = false;
  private spillPaths: string[] = [];
  private finished = false;
  private resolveDone!: (outcome: TaskOutcome) => void;

  constructor() {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  get isFinished(): boolean {
    return this.finished;
  }

  emit(text: string): void {
    this.pending += text;
  }

  /** Simulates the memory bound: pending bytes are dropped, the spill files keep them. */
  drop(spillPaths: string[]): void {
    this.pending = '';
    this.lost = true;
    this.spillPaths = spillPaths;
  }

  exit(exitCode: number): void {
    this.settle({ exitCode, signal: null });
  }

  die(signal: string): void {
    this.settle({ exitCode: null, signal });
  }

  fail(error: string): void {
    this.settle({ exitCode: null, signal: null, error });
  }

  readOutput(): TaskDelta {
    this.reads++;
    const delta = { text: this.pending, lost: this.lost, spillPaths: this.lost ? [...this.spillPaths] : [] };
    this.pending = '';
    this.lost = false;
    return delta;
  }

  async kill(): Promise<boolean> {
    this.killCalls++;
    if (this.finished) return false;
    if (!this.ignoreTerm) this.die('SIGTERM');
    return true;
  }

  private settle(outcome: TaskOutcome): void {
    if (this.finished) return;
    this.finished = true;
    this.resolveDone(outcome);
  }
}

/**
 * Resolves with the done-event of task `id`. Subscribe before settling: the
 * runtime notifies synchronously at settlement, after earlier subscribers.
 */
export function doneEvent(runtime: TaskRuntime, id: string): Promise<TaskDoneEvent> {
  return new Promise((resolve) => {
    const unsubscribe = runtime.onTaskDone((event) => {
      if (event.snapshot.id !== id) return;
      unsubscribe();
      resolve(event);
    });
  });
}

/** A producer the test resolves (or rejects) by hand. */
export function deferredProducer(): {
  producer: () => Promise<TaskProcess>;
  resolve: (process: TaskProcess) => void;
  reject: (error: Error) => void;
  readonly calls: number;
} {
  let resolve!: (process: TaskProcess) => void;
  let reject!: (error: Error) => void;
  let calls = 0;
  const promise = new Promise<TaskProcess>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {
    producer: () => {
      calls++;
      return promise;
    },
    resolve,
    reject,
    get calls() {
      return calls;
    },
  };
}

/** Starts a task backed by a fresh FakeTaskProcess. */
export async function startFake(
  runtime: TaskRuntime,
  options: { owner?: SessionContext; kind?: string; label?: string } = {},
): Promise<{ id: string; process: FakeTaskProcess }> {
  const process = new FakeTaskProcess();
  const snapshot = await runtime.start({
    owner: options.owner,
    kind: options.kind ?? 'bash',
    label: options.label ?? 'fake command',
    producer: async () => process,
  });
  return { id: snapshot.id, process };
}
