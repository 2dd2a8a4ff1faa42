import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../core/tool-contract.js';

export type TaskStatus = 'running' | 'stopping' | 'completed' | 'killed' | 'failed';

/** How a task's process settled, as the runtime needs it. */
export interface TaskOutcome {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly error?: string;
}

/** One consuming read of a task process. */
export interface TaskDelta {
  readonly text: string;
  readonly lost: boolean;
  readonly spillPaths: readonly string[];
}

/**
 * The live work behind a task. `ShellExecutor.start` returns one of these
 * (a `BackgroundProcess` is structurally a `TaskProcess`).
 */
export interface TaskProcess {
  readOutput(): TaskDelta;
  /** What the task printed that memory still holds (redacted), without consuming it; optional. */
  peekOutput?(): string;
  kill(): Promise<boolean>;
  readonly done: Promise<TaskOutcome>;
}

export interface TaskStartSpec {
  /** The owning session; undefined for an unowned task. */
  readonly owner?: SessionContext;
  /** Id prefix and display kind, e.g. `bash` → `bash-1`. */
  readonly kind: string;
  /** Human label (the command or its description). */
  readonly label: string;
  /** Starts the work. Called once, only after admission succeeds. */
  readonly producer: () => Promise<TaskProcess>;
}

/** Non-consuming snapshot of a task. */
export interface TaskSnapshot {
  readonly id: string;
  readonly kind: string;
  readonly label: string;
  readonly ownerId?: string;
  readonly status: TaskStatus;
  /** Terminal detail such as `exit code: 3` or `signal: SIGTERM`. */
  readonly detail?: string;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly outcome?: TaskOutcome;
}

/** A consuming read: the next delta plus the snapshot after it. */
export interface TaskRead {
  readonly snapshot: TaskSnapshot;
  readonly text: string;
  readonly lost: boolean;
  readonly spillPaths: readonly string[];
}

/** A position in a task's output, as a runtime that keeps its reads outside the process writes it down. */
export type TaskReadMark = Readonly<Record<string, unknown>>;

export interface TaskDoneEvent {
  readonly snapshot: TaskSnapshot;
  readonly owner?: SessionContext;
  /** True when the outcome already reached the model (killed by it, or read/waited to its end). */
  readonly reported: boolean;
}

export interface TaskRuntimeConfig {
  readonly maxConcurrentTasksPerOwner: number;
  /**
   * Finished tasks whose final output was read, kept per owner (oldest
   * forgotten first). Unread finished tasks are always kept.
   */
  readonly maxFinishedTasksPerOwner: number;
}

export const DEFAULT_TASK_RUNTIME_CONFIG: TaskRuntimeConfig = Object.freeze({
  maxConcurrentTasksPerOwner: 10,
  maxFinishedTasksPerOwner: 100,
});

export const TaskRuntimeConfig: ServiceIdentifier<Partial<TaskRuntimeConfig>> = Symbol.for('dsh.TaskRuntimeConfig');

/** A caller's view: `undefined` means no session (sees only unowned tasks). */
export type TaskCaller = SessionContext | undefined;

/**
 * Background tasks, fenced by owner: a caller sees only its own tasks (and
 * unowned ones); another owner's id reads exactly like an unknown id.
 */
export interface TaskRuntime {
  /**
   * Brings the caller's tasks into view before the synchronous calls that
   * follow (`get`, `list`, `read`, …); optional: a runtime whose tasks live
   * outside this process (shared sessions) finds where they are recorded.
   */
  prepare?(caller: TaskCaller): Promise<void>;
  /** Throws (nothing spawned) when the owner is disposed or over the admission limit. */
  preflight(owner: TaskCaller): void;
  start(spec: TaskStartSpec): Promise<TaskSnapshot>;
  get(caller: TaskCaller, id: string): TaskSnapshot | undefined;
  list(caller: TaskCaller): TaskSnapshot[];
  /** Consuming read; undefined for an unknown (or foreign) id. */
  read(caller: TaskCaller, id: string): TaskRead | undefined;
  /**
   * Where the next consuming read of a task starts, as JSON to keep
   * (shared sessions only: an MCP task's result read once, shown again on
   * any replica with `reread`); undefined for an unknown id.
   */
  readMark?(caller: TaskCaller, id: string): TaskReadMark | undefined;
  /** A read from `mark` that consumes nothing; undefined for an unknown id or a mark not of this runtime. */
  reread?(caller: TaskCaller, id: string, mark: TaskReadMark): TaskRead | undefined;
  /** What a task printed that memory holds, unconsumed (the operator console's tail); optional. */
  peek?(caller: TaskCaller, id: string): string | undefined;
  /** Requests cancellation; undefined for an unknown id; `alreadyFinished` when it had settled. */
  kill(caller: TaskCaller, id: string, reason?: string, by?: TaskKiller): Promise<{ snapshot: TaskSnapshot; alreadyFinished: boolean } | undefined>;
  /** Terminal snapshot, or the live one at timeout; aborting stops only the wait. */
  wait(caller: TaskCaller, id: string, timeoutMs: number, signal?: AbortSignal): Promise<TaskSnapshot | undefined>;
  /** Listener errors are contained. Returns an unsubscribe function. */
  onTaskDone(listener: (event: TaskDoneEvent) => void): () => void;
  /** Cancels and awaits the owner's live tasks. */
  disposeOwner(ownerId: string): Promise<void>;
  dispose(): Promise<void>;
}

/** Who kills a task: the model (which then knows), or an operator (the model is told when the task ends). */
export type TaskKiller = 'model' | 'operator';

export const TaskRuntime: ServiceIdentifier<TaskRuntime> = Symbol.for('dsh.TaskRuntime');
