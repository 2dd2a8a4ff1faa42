import { inject, injectable, optional } from 'inversify';
import type { SessionContext } from '../../core/tool-contract.js';
import { Clock, Logger } from '../logging/logger.js';
import { settlementOf, TaskEntry } from './task-entry.js';
import { TaskTables } from './task-tables.js';
import { resolveTaskRuntimeConfig } from './task-runtime-config.js';
import {
  TaskRuntimeConfig,
  type TaskCaller,
  type TaskKiller,
  type TaskDoneEvent,
  type TaskOutcome,
  type TaskProcess,
  type TaskRead,
  type TaskRuntime,
  type TaskSnapshot,
  type TaskStartSpec,
} from './task-runtime.js';
import { messageOf } from '../../core/describe-value.js';
import { MAX_TIMER_MS } from '../../core/timer.js';
import { isTaskProcess, validateTaskSpec } from './task-spec-check.js';

const EMPTY_DELTA = Object.freeze({ text: '', lost: false, spillPaths: Object.freeze([]) as readonly string[] });

type DoneListener = (event: TaskDoneEvent) => void;

/**
 * The default task runtime: tasks live in this process, fenced by owner.
 * Obligations (docs/contract.md §3.3): a refused start consumes no id and never calls the
 * producer; ids count per kind per runtime instance; settlement is first-wins
 * and notifies listeners once; another owner's task reads as unknown. A
 * producer that throws does not reject `start`: the task exists as `failed`
 * with the error as its detail, so the failure stays readable like any other.
 * A session's tasks live in its scope (`TaskTables`, found by the session
 * object) and are killed when it closes; only the unowned pool is the runtime's.
 */
@injectable()
export class LocalTaskRuntime implements TaskRuntime {
  private readonly config: TaskRuntimeConfig;
  /** Ids count per kind per runtime (`bash-1`, `bash-2`, … across sessions): keyed by kind, not by session. */
  private readonly counters = new Map<string, number>();
  /** Each session's tasks, in its scope; the unowned ones. */
  private readonly tables = new TaskTables((entry) => this.cancel(entry));
  private readonly listeners = new Set<{ readonly listener: DoneListener }>();
  private disposing?: Promise<void>;

  constructor(
    @inject(TaskRuntimeConfig) @optional() config?: Partial<TaskRuntimeConfig>,
    @inject(Logger) @optional() private readonly logger?: Logger,
    @inject(Clock) @optional() private readonly clock?: Clock,
  ) {
    this.config = resolveTaskRuntimeConfig(config);
  }

  preflight(owner: TaskCaller): void {
    if (this.disposing) throw new Error('background tasks unavailable: the task runtime has been disposed');
    if (owner !== undefined && (typeof owner !== 'object' || owner === null || typeof owner.id !== 'string')) {
      throw new Error('invalid task owner: expected a session with a string id');
    }
    if (owner?.disposed) throw new Error(`cannot start a background task: session "${owner.id}" has been disposed`);
    const limit = this.config.maxConcurrentTasksPerOwner;
    const live = this.tables.liveCount(owner);
    if (live >= limit) {
      const who = owner ? 'this session' : 'the unowned pool';
      throw new Error(
        `too many background tasks: ${who} already has ${live} running (limit ${limit}); ` +
          'stop one with task_kill or wait for one to finish, then retry',
      );
    }
  }

  async start(spec: TaskStartSpec): Promise<TaskSnapshot> {
    validateTaskSpec(spec);
    this.preflight(spec.owner);
    // Made before the id is taken: a session that refuses the scope rejects the start cleanly.
    const table = this.tables.tableFor(spec.owner);
    const entry = new TaskEntry(this.nextId(spec.kind), spec.kind, spec.label, spec.owner, this.now());
    this.tables.file(table, entry);
    let handle: unknown;
    try {
      handle = await spec.producer();
    } catch (error) {
      this.settle(entry, { exitCode: null, signal: null, error: messageOf(error) }, false);
      return entry.snapshot();
    }
    if (!isTaskProcess(handle)) {
      this.settle(entry, { exitCode: null, signal: null, error: 'the task producer returned no process handle' }, false);
      return entry.snapshot();
    }
    entry.process = handle;
    this.watch(entry, handle);
    // Cancelled while the producer ran (owner or runtime disposed): stop it now.
    if (entry.cancelRequested) entry.killing = this.killProcess(entry, handle);
    return entry.snapshot();
  }

  get(caller: TaskCaller, id: string): TaskSnapshot | undefined {
    return this.tables.find(caller, id)?.entry.snapshot();
  }

  list(caller: TaskCaller): TaskSnapshot[] {
    return this.tables.visibleTo(caller).map((entry) => entry.snapshot());
  }

  read(caller: TaskCaller, id: string): TaskRead | undefined {
    const found = this.tables.find(caller, id);
    if (!found) return undefined;
    const { entry, table } = found;
    // Status first: a task that settled before this read has drained all its
    // output, so this delta is final and the handle can be released.
    const terminal = !entry.live;
    let delta: { text: string; lost: boolean; spillPaths: readonly string[] } = EMPTY_DELTA;
    if (entry.process) {
      try {
        delta = entry.process.readOutput();
      } catch (error) {
        this.logger?.warn(`task ${entry.id}: reading output failed: ${messageOf(error)}`);
      }
      if (terminal) entry.process = undefined;
    }
    if (terminal && !entry.collected) {
      entry.collected = true;
      table.forgetOldCollected(this.config.maxFinishedTasksPerOwner);
    }
    return Object.freeze({
      snapshot: entry.snapshot(),
      text: delta.text,
      lost: delta.lost,
      spillPaths: Object.freeze([...delta.spillPaths]),
    });
  }

  peek(caller: TaskCaller, id: string): string | undefined {
    const entry = this.tables.find(caller, id)?.entry;
    return entry === undefined ? undefined : (entry.process?.peekOutput?.() ?? '');
  }

  async kill(
    caller: TaskCaller,
    id: string,
    reason?: string,
    by: TaskKiller = 'model',
  ): Promise<{ snapshot: TaskSnapshot; alreadyFinished: boolean } | undefined> {
    const entry = this.tables.find(caller, id)?.entry;
    if (!entry) return undefined;
    if (!entry.live) return { snapshot: entry.snapshot(), alreadyFinished: true };
    entry.killedByModel = by === 'model';
    if (reason !== undefined && entry.killReason === undefined) entry.killReason = String(reason);
    this.cancel(entry);
    return { snapshot: entry.snapshot(), alreadyFinished: false };
  }

  async wait(caller: TaskCaller, id: string, timeoutMs: number, signal?: AbortSignal): Promise<TaskSnapshot | undefined> {
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
      throw new Error(`invalid wait timeout: expected a non-negative number of milliseconds, got ${String(timeoutMs)}`);
    }
    const entry = this.tables.find(caller, id)?.entry;
    if (!entry) return undefined;
    if (!entry.live || timeoutMs === 0 || signal?.aborted) return entry.snapshot();
    await new Promise<void>((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        entry.waiters.delete(finish);
        resolve();
      };
      const timer = setTimeout(finish, Math.min(timeoutMs, MAX_TIMER_MS));
      signal?.addEventListener('abort', finish, { once: true });
      entry.waiters.add(finish);
    });
    return entry.snapshot();
  }

  onTaskDone(listener: (event: TaskDoneEvent) => void): () => void {
    if (typeof listener !== 'function') throw new Error('onTaskDone: listener must be a function');
    const subscription = { listener };
    this.listeners.add(subscription);
    return () => {
      this.listeners.delete(subscription);
    };
  }

  /** By id for embedders: stops the tasks of every open session with this id (the scope does it for a closing session). */
  async disposeOwner(ownerId: string): Promise<void> {
    await this.tables.stopOwnersWithId(ownerId);
  }

  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      await this.tables.stopAll();
      this.listeners.clear();
    })();
    return this.disposing;
  }

  private nextId(kind: string): string {
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    return `${kind}-${n}`;
  }

  /** Moves a live task to `stopping` and kills its process (or marks it for the kill once spawned). */
  private cancel(entry: TaskEntry): void {
    if (entry.status !== 'running') return;
    entry.status = 'stopping';
    entry.cancelRequested = true;
    if (entry.process) entry.killing = this.killProcess(entry, entry.process);
  }

  private async killProcess(entry: TaskEntry, handle: TaskProcess): Promise<boolean> {
    try {
      return await handle.kill();
    } catch (error) {
      this.logger?.warn(`task ${entry.id}: kill failed: ${messageOf(error)}`);
      return false;
    }
  }

  private watch(entry: TaskEntry, handle: TaskProcess): void {
    void Promise.resolve(handle.done)
      .then(
        (outcome): TaskOutcome => outcome,
        (error: unknown): TaskOutcome => ({ exitCode: null, signal: null, error: messageOf(error) }),
      )
      .then(async (outcome) => {
        // Only a kill that reached a still-running process makes it `killed`;
        // `kill()` answers false when the process had already exited on its own.
        const cancelled = entry.killing ? await entry.killing : false;
        this.settle(entry, outcome, cancelled);
      })
      .catch((error: unknown) => this.logger?.error(`task ${entry.id}: settlement failed: ${messageOf(error)}`));
  }

  private settle(entry: TaskEntry, outcome: TaskOutcome, cancelled: boolean): void {
    // Computed before `finish` wakes the waiters: a pending wait means the
    // caller (task_output with wait) is about to see the end itself.
    const reported = entry.killedByModel || entry.waiters.size > 0;
    if (!entry.finish(outcome, settlementOf(outcome, cancelled), this.now())) return;
    if (entry.killReason !== undefined) this.logger?.debug(`task ${entry.id} killed: ${entry.killReason}`);
    const event: TaskDoneEvent = Object.freeze({ snapshot: entry.snapshot(), owner: entry.owner, reported });
    for (const { listener } of [...this.listeners]) {
      try {
        const result: unknown = listener(event);
        if (typeof (result as Promise<unknown> | undefined)?.then === 'function') {
          (result as Promise<unknown>).catch((error: unknown) => this.listenerFailed(entry, error));
        }
      } catch (error) {
        this.listenerFailed(entry, error);
      }
    }
  }

  private listenerFailed(entry: TaskEntry, error: unknown): void {
    this.logger?.warn(`task ${entry.id}: a task-done listener failed: ${messageOf(error)}`);
  }

  private now(): number {
    return this.clock ? this.clock.now() : Date.now();
  }
}
