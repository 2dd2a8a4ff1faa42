import type { SessionContext } from '../../core/tool-contract.js';
import type { TaskEntry } from './task-entry.js';

/**
 * One owner's tasks, by task id: a session's live in its scope (found by the
 * session object, so another session never reaches them), the unowned pool
 * in the runtime. Each task carries the runtime-wide order it was started
 * in, so a caller's list can merge its own tasks with the unowned ones.
 */
export class OwnerTasks {
  private readonly tasks = new Map<string, { readonly entry: TaskEntry; readonly order: number }>();

  /** `owner` is undefined for the unowned pool. */
  constructor(readonly owner: SessionContext | undefined) {}

  get(id: string): TaskEntry | undefined {
    return this.tasks.get(id)?.entry;
  }

  add(entry: TaskEntry, order: number): void {
    this.tasks.set(entry.id, { entry, order });
  }

  /** Tasks with their start order, oldest first. */
  ordered(): Array<{ readonly entry: TaskEntry; readonly order: number }> {
    return [...this.tasks.values()];
  }

  entries(): TaskEntry[] {
    return [...this.tasks.values()].map(({ entry }) => entry);
  }

  /** Running or stopping tasks (what admission counts). */
  liveCount(): number {
    let count = 0;
    for (const { entry } of this.tasks.values()) if (entry.live) count++;
    return count;
  }

  /** Keeps a long-lived owner's list bounded: the oldest fully read tasks beyond `keep` go first. */
  forgetOldCollected(keep: number): void {
    const collected = this.entries().filter((entry) => entry.collected);
    for (const entry of collected.slice(0, Math.max(0, collected.length - keep))) this.tasks.delete(entry.id);
  }

  /** Cancels every live task with `cancel`, awaits their settlement, then forgets them (nobody can see them any more). */
  async stopAll(cancel: (entry: TaskEntry) => void): Promise<void> {
    const all = this.entries();
    for (const entry of all) cancel(entry);
    await Promise.all(all.map((entry) => entry.settled));
    for (const entry of all) this.tasks.delete(entry.id);
  }
}
