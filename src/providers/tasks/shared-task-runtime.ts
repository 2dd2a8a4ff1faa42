import { existsSync } from 'node:fs';
import type { SessionContext } from '../../core/tool-contract.js';
import { messageOf } from '../../core/describe-value.js';
import { ScopeKey, scopeOf } from '../../core/session-scope.js';
import type { Logger } from '../logging/logger.js';
import type { Redactor } from '../output-filter/redactor.js';
import { isDetached } from '../exec/engine/detached-background-process.js';
import { stopDetached } from '../exec/engine/detached-task-files.js';
import { runCap } from '../exec/engine/detached-task.js';
import type { SessionContainers } from '../exec/engine/session-containers.js';
import { LocalTaskRuntime } from './local-task-runtime.js';
import { relayTask } from './shared-task-relay.js';
import { readSharedTask, readStateOf, type ReadState } from './shared-task-read.js';
import { SharedTaskRecords } from './shared-task-records.js';
import { snapshotOf, type Meta, type Run } from './shared-task-snapshot.js';
import type { TaskCaller, TaskDoneEvent, TaskKiller, TaskRead, TaskReadMark, TaskRuntime, TaskRuntimeConfig, TaskSnapshot, TaskStartSpec } from './task-runtime.js';
import { isTaskProcess, validateTaskSpec } from './task-spec-check.js';

/**
 * Made in the scope of a session that started a task: the session holds
 * something a later call can use, so a 2026-07-28 call that started one
 * gets a handle (the tasks themselves are the sandbox's, not the scope's).
 */
const STARTED_TASKS = new ScopeKey<true>('the shared background tasks', { outlivesCall: true });

/** How often a wait, the done listeners and a relayed task look at the records. */
const POLL_MS = 100;

interface SharedTaskLimits {
  readonly maxOutputBytes: number;
  /** What a task's output kept in the sandbox stays within, per stream (runCap). */
  readonly maxSpillBytes: number;
  readonly graceMs: number;
}

/**
 * The task runtime of `serve --shared-sessions` (docs/shared-sessions.md#tasks).
 * A session's task is recorded in its sandbox's directory on the host and
 * its command runs detached in the sandbox, writing to files there: every
 * replica over the engine lists, reads, waits for and kills it by the same
 * id, and a replica that dies or stops takes nothing with it. A session
 * closing here leaves its tasks running (they are the sandbox's; they end
 * with the session). Unowned tasks stay this replica's (`LocalTaskRuntime`).
 */
export class SharedTaskRuntime implements TaskRuntime {
  private readonly local: LocalTaskRuntime;
  private readonly records = new WeakMap<SessionContext, SharedTaskRecords>();
  private readonly listeners = new Set<{ readonly listener: (event: TaskDoneEvent) => void }>();
  /** Tasks started here, watched for their end (the done listeners: the starting replica tells its session). */
  private readonly watched = new Map<string, { readonly owner: SessionContext; readonly store: SharedTaskRecords; readonly id: string }>();
  /** Waits pending here, by record: a task that ends under one is reported by it. */
  private readonly waiting = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly containers: SessionContainers,
    private readonly limits: SharedTaskLimits,
    private readonly config: TaskRuntimeConfig,
    private readonly redactor?: Redactor,
    private readonly logger?: Logger,
  ) {
    this.local = new LocalTaskRuntime(config, logger);
  }

  /** Finds the session's sandbox directory (this replica's, or the one another made), so the calls after it see its tasks. */
  async prepare(caller: TaskCaller): Promise<void> {
    if (caller === undefined) return;
    const known = this.records.get(caller);
    if (known !== undefined && existsSync(known.sessionDir)) return;
    const dir = await this.containers.sessionDirOf(caller);
    if (dir === undefined) this.records.delete(caller);
    else this.records.set(caller, new SharedTaskRecords(dir));
  }

  preflight(owner: TaskCaller): void {
    if (owner === undefined) return this.local.preflight(owner);
    if (this.disposed) throw new Error('background tasks unavailable: the task runtime has been disposed');
    if (typeof owner !== 'object' || owner === null || typeof owner.id !== 'string') throw new Error('invalid task owner: expected a session with a string id');
    if (owner.disposed) throw new Error(`cannot start a background task: session "${owner.id}" has been disposed`);
    const limit = this.config.maxConcurrentTasksPerOwner;
    const live = this.list(owner).filter((task) => task.ownerId !== undefined && (task.status === 'running' || task.status === 'stopping')).length;
    if (live >= limit) {
      throw new Error(
        `too many background tasks: this session already has ${live} running (limit ${limit}); ` +
          'stop one with task_kill or wait for one to finish, then retry',
      );
    }
  }

  async start(spec: TaskStartSpec): Promise<TaskSnapshot> {
    validateTaskSpec(spec);
    const owner = spec.owner;
    if (owner === undefined) return this.local.start(spec);
    await this.prepare(owner);
    this.preflight(owner);
    const store = await this.storeFor(owner);
    scopeOf(owner).get(STARTED_TASKS, () => true);
    const id = store.allocate(spec.kind);
    store.write(id, 'meta.json', { id, kind: spec.kind, label: spec.label, ownerId: owner.id, startedAt: Date.now() } satisfies Meta);
    let handle: unknown;
    try {
      handle = await spec.producer();
    } catch (error) {
      handle = undefined;
      store.write(id, 'failed.json', { error: messageOf(error), at: Date.now() });
    }
    if (isDetached(handle)) store.write(id, 'run.json', handle.detached);
    else if (isTaskProcess(handle)) relayTask(store, id, handle, runCap(this.limits), this.logger);
    else if (!store.has(id, 'failed.json')) store.write(id, 'failed.json', { error: 'the task producer returned no process handle', at: Date.now() });
    this.watch(owner, store, id);
    return snapshotOf(store, id)!;
  }

  get(caller: TaskCaller, id: string): TaskSnapshot | undefined {
    const store = this.own(caller);
    return (store && snapshotOf(store, id)) ?? this.local.get(caller, id);
  }

  list(caller: TaskCaller): TaskSnapshot[] {
    const store = this.own(caller);
    const shared = store === undefined ? [] : store.ids().flatMap((id) => snapshotOf(store, id) ?? []);
    shared.sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id, 'en', { numeric: true }));
    return [...shared, ...this.local.list(caller)];
  }

  read(caller: TaskCaller, id: string): TaskRead | undefined {
    const store = this.own(caller);
    const snapshot = store && snapshotOf(store, id);
    if (store === undefined || snapshot === undefined) return this.local.read(caller, id);
    const from = store.read<ReadState>(id, 'read.json') ?? { out: 0, err: 0 };
    const { read, next } = readSharedTask(store, id, snapshot, from, this.limits.maxOutputBytes, this.redactor);
    if (next !== from) store.write(id, 'read.json', next);
    if (read.snapshot.status !== 'running' && read.snapshot.status !== 'stopping') store.create(id, 'collected', {});
    return read;
  }

  readMark(caller: TaskCaller, id: string): TaskReadMark | undefined {
    const store = this.own(caller);
    if (store === undefined || snapshotOf(store, id) === undefined) return undefined;
    return { out: 0, err: 0, ...store.read<ReadState>(id, 'read.json') };
  }

  reread(caller: TaskCaller, id: string, mark: TaskReadMark): TaskRead | undefined {
    const store = this.own(caller);
    const snapshot = store && snapshotOf(store, id);
    const from = readStateOf(mark);
    if (store === undefined || snapshot === undefined || from === undefined) return undefined;
    return readSharedTask(store, id, snapshot, from, this.limits.maxOutputBytes, this.redactor).read;
  }

  async kill(caller: TaskCaller, id: string, reason?: string, by: TaskKiller = 'model'): Promise<{ snapshot: TaskSnapshot; alreadyFinished: boolean } | undefined> {
    const store = this.own(caller);
    const snapshot = store && snapshotOf(store, id);
    if (store === undefined || snapshot === undefined) return this.local.kill(caller, id, reason, by);
    if (snapshot.status !== 'running' && snapshot.status !== 'stopping') return { snapshot, alreadyFinished: true };
    store.create(id, 'kill.json', { by, ...(reason === undefined ? {} : { reason: String(reason) }), at: Date.now() });
    const run = store.read<Run>(id, 'run.json');
    // A relayed task is stopped by the replica relaying it, which looks for `kill.json`.
    if (run !== undefined && run.relay === undefined) {
      void stopDetached(this.containers.engine, run, this.limits.graceMs).catch((error: unknown) => this.logger?.warn(`task ${id}: kill failed: ${messageOf(error)}`));
    }
    return { snapshot: snapshotOf(store, id)!, alreadyFinished: false };
  }

  async wait(caller: TaskCaller, id: string, timeoutMs: number, signal?: AbortSignal): Promise<TaskSnapshot | undefined> {
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
      throw new Error(`invalid wait timeout: expected a non-negative number of milliseconds, got ${String(timeoutMs)}`);
    }
    const store = this.own(caller);
    let snapshot = store && snapshotOf(store, id);
    if (store === undefined || snapshot === undefined) return this.local.wait(caller, id, timeoutMs, signal);
    const key = `${store.sessionDir}\0${id}`;
    this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1);
    try {
      const deadline = Date.now() + timeoutMs;
      while (isLive(snapshot) && Date.now() < deadline && signal?.aborted !== true) {
        await pause(Math.min(POLL_MS, deadline - Date.now()), signal);
        snapshot = snapshotOf(store, id) ?? snapshot;
      }
      return snapshot;
    } finally {
      const left = (this.waiting.get(key) ?? 1) - 1;
      if (left > 0) this.waiting.set(key, left);
      else this.waiting.delete(key);
    }
  }

  onTaskDone(listener: (event: TaskDoneEvent) => void): () => void {
    if (typeof listener !== 'function') throw new Error('onTaskDone: listener must be a function');
    const subscription = { listener };
    this.listeners.add(subscription);
    const unsubscribeLocal = this.local.onTaskDone(listener);
    return () => {
      this.listeners.delete(subscription);
      unsubscribeLocal();
    };
  }

  /** Only the unowned tasks are this replica's: a session's belong to its sandbox and end with the session. */
  disposeOwner(ownerId: string): Promise<void> {
    return this.local.disposeOwner(ownerId);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.timer);
    this.watched.clear();
    this.listeners.clear();
    await this.local.dispose();
  }

  /** The caller's records, once `prepare` or a start found them. */
  private own(caller: TaskCaller): SharedTaskRecords | undefined {
    return caller === undefined ? undefined : this.records.get(caller);
  }

  private async storeFor(owner: SessionContext): Promise<SharedTaskRecords> {
    const live = await this.containers.acquire(owner);
    let store = this.records.get(owner);
    if (store?.sessionDir !== live.dir) this.records.set(owner, (store = new SharedTaskRecords(live.dir)));
    return store;
  }

  /** Watches a task started here; its end reaches the done listeners once. */
  private watch(owner: SessionContext, store: SharedTaskRecords, id: string): void {
    this.watched.set(`${store.sessionDir}\0${id}`, { owner, store, id });
    this.timer ??= setInterval(() => this.lookForEnds(), POLL_MS);
    this.timer.unref();
  }

  private lookForEnds(): void {
    for (const [key, { owner, store, id }] of this.watched) {
      const snapshot = snapshotOf(store, id);
      if (snapshot !== undefined && isLive(snapshot)) continue;
      this.watched.delete(key);
      if (snapshot === undefined) continue;
      const reported = store.read<{ by?: string }>(id, 'kill.json')?.by === 'model' || store.has(id, 'collected') || (this.waiting.get(key) ?? 0) > 0;
      const event: TaskDoneEvent = Object.freeze({ snapshot, owner, reported });
      for (const { listener } of [...this.listeners]) {
        try {
          listener(event);
        } catch (error) {
          this.logger?.warn(`task ${id}: a task-done listener failed: ${messageOf(error)}`);
        }
      }
    }
    if (this.watched.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

function isLive(snapshot: TaskSnapshot | undefined): boolean {
  return snapshot?.status === 'running' || snapshot?.status === 'stopping';
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}
