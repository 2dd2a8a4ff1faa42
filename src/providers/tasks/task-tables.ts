import { PerSession } from '../../core/per-session.js';
import type { SessionContext } from '../../core/tool-contract.js';
import { OwnerTasks } from './owner-tasks.js';
import type { TaskEntry } from './task-entry.js';
import type { TaskCaller } from './task-runtime.js';

/**
 * Where one runtime keeps its tasks: each session's in its scope (found by
 * the session object, stopped when the session closes), the unowned ones
 * here. Holds no table keyed by a session id: the open sessions' tables are
 * a set, kept so the runtime's own disposal still reaches them.
 */
export class TaskTables {
  /** Each session's table, in its scope (this runtime's: another keeps its own). */
  private readonly tables: PerSession<OwnerTasks, SessionContext>;
  private readonly unowned = new OwnerTasks(undefined);
  /** Start order across the runtime: a caller's list merges its own tasks with the unowned ones by it. */
  private started = 0;

  /** `cancel` moves a live task to stopping and kills it (the runtime's). */
  constructor(private readonly cancel: (entry: TaskEntry) => void) {
    this.tables = new PerSession('the background tasks', { outlivesCall: true }, (owner) => new OwnerTasks(owner), (table) => table.stopAll(this.cancel));
  }

  /** The owner's table, made in its scope on first use (throws once the session is disposed); the unowned pool for none. */
  tableFor(owner: SessionContext | undefined): OwnerTasks {
    return owner === undefined ? this.unowned : this.tables.of(owner);
  }

  /** Files a new task in `table` (from `tableFor`), after every task started before it. */
  file(table: OwnerTasks, entry: TaskEntry): void {
    table.add(entry, ++this.started);
  }

  /** The live tasks counted against `owner`'s admission (the unowned pool's for none). */
  liveCount(owner: TaskCaller): number {
    return this.own(owner)?.liveCount() ?? 0;
  }

  /** The fence: a caller finds its own tasks and unowned ones, so unknown and foreign ids are indistinguishable. */
  find(caller: TaskCaller, id: string): { readonly entry: TaskEntry; readonly table: OwnerTasks } | undefined {
    if (typeof id !== 'string') return undefined;
    for (const table of [caller === undefined ? undefined : this.own(caller), this.unowned]) {
      const entry = table?.get(id);
      if (entry && table) return { entry, table };
    }
    return undefined;
  }

  /** The caller's own and the unowned tasks, in the order they started. */
  visibleTo(caller: TaskCaller): TaskEntry[] {
    const own = caller === undefined ? [] : (this.own(caller)?.ordered() ?? []);
    return [...own, ...this.unowned.ordered()].sort((a, b) => a.order - b.order).map(({ entry }) => entry);
  }

  /** By id for embedders (`disposeOwner`): stops the tasks of every open session with this id. */
  async stopOwnersWithId(ownerId: string): Promise<void> {
    const owners = this.tables.open().filter((table) => table.owner?.id === ownerId);
    await Promise.all(owners.map((table) => table.stopAll(this.cancel)));
  }

  /** Stops every task of every open session and the unowned ones (the runtime's disposal). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.tables.open(), this.unowned].map((table) => table.stopAll(this.cancel)));
  }

  /** The caller's table if it has one (the unowned pool for none): another session's is never found. */
  private own(caller: TaskCaller): OwnerTasks | undefined {
    return caller === undefined ? this.unowned : this.tables.existing(caller);
  }
}
