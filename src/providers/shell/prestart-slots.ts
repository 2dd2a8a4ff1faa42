import { scopeOf, ScopeKey } from '../../core/session-scope.js';
import type { SessionContext } from '../../core/tool-contract.js';
import type { PrestartedShell } from './prestarted-shell.js';

/**
 * While this many calls run in the executor (a burst: many sessions' calls at
 * once), no shell is started: each would be one more spawn competing with
 * the burst for the CPU. The sessions that asked get theirs when the burst is
 * over. One long command alone does not hold the others' shells back.
 */
const BURST_CALLS = 2;

interface Slot {
  readonly shell: PrestartedShell;
  /** How it was started (confinement and what it may read): a call that would spawn otherwise does not get it. */
  readonly key: string;
  readonly idle: NodeJS.Timeout;
}

/**
 * At most one pre-started shell per session (calls without a session share
 * one). A shell waits at most `idleMs`; it is killed when taken by no call in
 * that time, when its session is disposed, on `dispose()`, and when a call
 * finds it started under another key (a mode change, a re-pinned workspace,
 * a new readable path): such a call is spawned plainly.
 */
export class PrestartSlots {
  private readonly slots = new Map<string, Slot>();
  /** Calls running per session: while any runs, no shell is started for it (see `begin`). */
  private readonly running = new Map<string, number>();
  /** Calls running in all sessions (see `BURST_CALLS`). */
  private runningCalls = 0;
  /** Sessions whose shell waits for the end of a burst, with how to start it. */
  private readonly deferred = new Map<string, { session: SessionContext | undefined; key: string; start: () => PrestartedShell | undefined }>();
  /** Marks, in each session's scope, that its waiting shell is stopped when it closes. */
  private readonly sessionKey = new ScopeKey<true>('the pre-started shell', { holdsProcess: true });
  private disposed = false;

  constructor(private readonly idleMs: number) {}

  /** The session's waiting shell if it was started under `key`; it leaves the slot either way. */
  take(session: SessionContext | undefined, key: string): PrestartedShell | undefined {
    const id = session?.id ?? '';
    const slot = this.slots.get(id);
    if (slot === undefined) return undefined;
    this.slots.delete(id);
    clearTimeout(slot.idle);
    if (slot.key === key && slot.shell.usable) return slot.shell;
    slot.shell.discard();
    return undefined;
  }

  /**
   * A call of the session starts. Until the last of its calls ends (`end`),
   * `fill` starts nothing for it: calls made together (a model's parallel
   * tool calls) each spawn anyway, so a shell started between them would
   * compete with them for the CPU and wait unused; one is started when the
   * burst is over.
   */
  begin(session: SessionContext | undefined): void {
    const id = session?.id ?? '';
    this.running.set(id, (this.running.get(id) ?? 0) + 1);
    this.runningCalls++;
  }

  end(session: SessionContext | undefined): void {
    const id = session?.id ?? '';
    const left = (this.running.get(id) ?? 1) - 1;
    if (left > 0) this.running.set(id, left);
    else this.running.delete(id);
    this.runningCalls = Math.max(0, this.runningCalls - 1);
    if (this.runningCalls < BURST_CALLS && this.deferred.size > 0) setImmediate(() => this.startDeferred());
  }

  /**
   * Puts `unused` back (a call that could not use it), else starts a fresh
   * shell with `start` — unless the slot is filled, a call of the session
   * runs, or the session or the slots are gone; during a burst of other
   * sessions' calls the start waits for its end. Never throws.
   */
  fill(session: SessionContext | undefined, key: string, start: () => PrestartedShell | undefined, unused?: PrestartedShell): void {
    const id = session?.id ?? '';
    if (this.disposed || session?.disposed === true || this.slots.has(id) || this.running.has(id)) {
      unused?.discard();
      return;
    }
    if (unused?.usable !== true && this.runningCalls >= BURST_CALLS) {
      this.deferred.set(id, { session, key, start });
      return;
    }
    this.deferred.delete(id);
    const shell = unused?.usable === true ? unused : start();
    if (shell === undefined) return;
    const idle = setTimeout(() => this.drop(id), this.idleMs);
    idle.unref();
    this.slots.set(id, { shell, key, idle });
    if (session !== undefined) scopeOf(session).get(this.sessionKey, () => true, () => this.drop(session.id));
  }

  /** Pids of the waiting shells (for diagnostics and tests). */
  get pids(): number[] {
    return [...this.slots.values()].flatMap((slot) => (slot.shell.pid === undefined ? [] : [slot.shell.pid]));
  }

  dispose(): void {
    this.disposed = true;
    this.deferred.clear();
    for (const id of [...this.slots.keys()]) this.drop(id);
  }

  private startDeferred(): void {
    if (this.runningCalls >= BURST_CALLS) return;
    const waiting = [...this.deferred.values()];
    this.deferred.clear();
    for (const { session, key, start } of waiting) this.fill(session, key, start);
  }

  private drop(id: string): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    this.slots.delete(id);
    clearTimeout(slot.idle);
    slot.shell.discard();
  }
}
