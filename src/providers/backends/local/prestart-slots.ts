import { PerSession } from '../../../core/per-session.js';
import { scopeOf } from '../../../core/session-scope.js';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { PrestartedShell } from '../../exec/shell/prestarted-shell.js';

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
  /** When it was put in (`pids` lists the waiting shells in that order). */
  readonly order: number;
}

/** One session's pre-start state (in its scope), or the sessionless calls' (in the slots). */
interface SessionPrestart {
  readonly session: SessionContext | undefined;
  slot?: Slot;
  /** Its calls running now: while any runs, no shell is started for it (see `begin`). */
  running: number;
  /** Its shell waits for the end of a burst, with how to start it. */
  deferred?: { readonly key: string; readonly start: () => PrestartedShell | undefined };
  /** The session closed: nothing is started for it any more. */
  closed: boolean;
}

/**
 * At most one pre-started shell per session (calls without a session share
 * one). A shell waits at most `idleMs`; it is killed when taken by no call in
 * that time, when its session is disposed, on `dispose()`, and when a call
 * finds it started under another key (a mode change, a re-pinned workspace,
 * a new readable path): such a call is spawned plainly. Each session's slot
 * lives in its scope, found by the session object.
 */
export class PrestartSlots {
  /** Each session's state, in its scope (these slots': another executor keeps its own); the open ones reach a disposal of the slots that comes before theirs. */
  private readonly perSession = new PerSession<SessionPrestart, SessionContext>(
    'the pre-started shell',
    {},
    (session) => ({ session, running: 0, closed: false }),
    (state) => {
      state.closed = true;
      state.deferred = undefined;
      this.waiting.delete(state);
      this.drop(state);
    },
  );
  private readonly sessionless: SessionPrestart = { session: undefined, running: 0, closed: false };
  /** States whose shell waits for the end of a burst, in the order they asked. */
  private readonly waiting = new Set<SessionPrestart>();
  /** Calls running in all sessions (see `BURST_CALLS`). */
  private runningCalls = 0;
  private filled = 0;
  private disposed = false;

  constructor(private readonly idleMs: number) {}

  /** The session's waiting shell if it was started under `key`; it leaves the slot either way. */
  take(session: SessionContext | undefined, key: string): PrestartedShell | undefined {
    const state = this.existing(session);
    const slot = state?.slot;
    if (state === undefined || slot === undefined) return undefined;
    state.slot = undefined;
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
    const state = this.stateOf(session);
    if (state !== undefined) state.running++;
    this.runningCalls++;
  }

  end(session: SessionContext | undefined): void {
    const state = this.existing(session);
    if (state !== undefined) state.running = Math.max(0, state.running - 1);
    this.runningCalls = Math.max(0, this.runningCalls - 1);
    if (this.runningCalls < BURST_CALLS && this.waiting.size > 0) setImmediate(() => this.startDeferred());
  }

  /**
   * Puts `unused` back (a call that could not use it), else starts a fresh
   * shell with `start` — unless the slot is filled, a call of the session
   * runs, or the session or the slots are gone; during a burst of other
   * sessions' calls the start waits for its end. Never throws.
   */
  fill(session: SessionContext | undefined, key: string, start: () => PrestartedShell | undefined, unused?: PrestartedShell): void {
    const state = this.disposed || session?.disposed === true ? undefined : this.stateOf(session);
    if (state === undefined || state.closed || state.slot !== undefined || state.running > 0) {
      unused?.discard();
      return;
    }
    if (unused?.usable !== true && this.runningCalls >= BURST_CALLS) {
      state.deferred = { key, start };
      this.waiting.add(state);
      return;
    }
    state.deferred = undefined;
    this.waiting.delete(state);
    const shell = unused?.usable === true ? unused : start();
    if (shell === undefined) return;
    const idle = setTimeout(() => this.drop(state), this.idleMs);
    idle.unref();
    state.slot = { shell, key, idle, order: ++this.filled };
  }

  /** Pids of the waiting shells (for diagnostics and tests). */
  get pids(): number[] {
    const slots = [this.sessionless, ...this.perSession.open()].flatMap((state) => (state.slot === undefined ? [] : [state.slot]));
    return slots.sort((a, b) => a.order - b.order).flatMap((slot) => (slot.shell.pid === undefined ? [] : [slot.shell.pid]));
  }

  dispose(): void {
    this.disposed = true;
    this.waiting.clear();
    for (const state of [this.sessionless, ...this.perSession.open()]) {
      state.deferred = undefined;
      this.drop(state);
    }
  }

  private startDeferred(): void {
    if (this.runningCalls >= BURST_CALLS) return;
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const state of waiting) {
      const deferred = state.deferred;
      state.deferred = undefined;
      if (deferred !== undefined) this.fill(state.session, deferred.key, deferred.start);
    }
  }

  /** The session's state if it has one (another session's is never found). */
  private existing(session: SessionContext | undefined): SessionPrestart | undefined {
    return session === undefined ? this.sessionless : this.perSession.existing(session);
  }

  /** The session's state, made in its scope on first use; undefined once the session is disposed. */
  private stateOf(session: SessionContext | undefined): SessionPrestart | undefined {
    if (session === undefined) return this.sessionless;
    if (session.disposed) return undefined;
    const scope = scopeOf(session);
    if (scope.disposed) return undefined;
    return this.perSession.of(session);
  }

  private drop(state: SessionPrestart): void {
    const slot = state.slot;
    if (slot === undefined) return;
    state.slot = undefined;
    clearTimeout(slot.idle);
    slot.shell.discard();
  }
}
