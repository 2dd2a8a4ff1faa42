import type { DshHost } from '../../container/dsh-host.js';
import type { HostSession } from '../../container/host-session.js';
import type { Clock } from '../../providers/logging/logger.js';
import { TaskRuntime } from '../../providers/tasks/task-runtime.js';
import { reportSessionActivity } from '../../core/session-activity.js';

/*
 * Clients that never say goodbye (no DELETE) leave sessions behind; clients
 * that only listen (an open event stream, a background task) must keep
 * theirs. A session is busy while a request of it is in flight, an event
 * stream of it is open, one of its background tasks runs, or a call of it
 * waits for an approval answer (held like a request, see approval-round-trips.ts);
 * once none of that is true it is idle, and its resources go in two stages:
 * its persistent shell after `persistent.idleCloseMs` (decided by the shell's
 * own idle clock, which asks this activity: shell-idle-close.ts). A pre-started
 * shell has its own short limit (prestart-slots.ts).
 *
 * The session itself ends when its client is gone (docs/operations.md,
 * "Abandoned sessions"): no request and no open event stream for
 * `sessionIdleMs`, whatever its tasks do — a running task keeps it only while
 * the client reads or waits on it, which are requests — or, in any case,
 * `lifetimeMs` after it opened. Its tasks end with it.
 */

export interface IdleSettings {
  /** `--idle-timeout`: an idle session is released after this long; 0 never. */
  readonly sessionIdleMs: number;
  /**
   * A session idle at least this long may be released to make room for a new
   * one when a cap is reached (a session just opened, or between two calls,
   * is not fair game); default `EVICT_AFTER_MS`.
   */
  readonly evictAfterMs?: number;
  /** `--session-lifetime`: every session ends this long after it opened, busy or not; 0 or absent: never. */
  readonly lifetimeMs?: number;
}

/** Why the idle stages end a session: abandoned (`idle`), or its lifetime is over. */
export type StageCause = 'idle' | 'lifetime';

/** How long a session must have been idle before a new session may take its place. */
const EVICT_AFTER_MS = 5000;

/** Whether a session idle since `idleSince` may be released to make room at `now`. */
export function evictable(idleSince: number | undefined, now: number, settings: IdleSettings): idleSince is number {
  return idleSince !== undefined && now - idleSince >= (settings.evictAfterMs ?? EVICT_AFTER_MS);
}

/** Whether `session` has a background task that has not settled. */
export type RunningTasks = (session: HostSession) => boolean;

/** Reads the host's task runtime (none bound: no tasks). */
export function runningTasksOf(host: DshHost): RunningTasks {
  if (!host.isBound(TaskRuntime)) return () => false;
  const tasks = host.get(TaskRuntime);
  return (session) => tasks.list(session).some((task) => task.ownerId === session.id && (task.status === 'running' || task.status === 'stopping'));
}

/** One session's activity: what keeps it busy, and since when it is idle. */
export class SessionActivity {
  private requests = 0;
  private streams = 0;
  private lastActive: number;
  /** When the client last had a request or an event stream open. */
  private lastHeard: number;
  readonly openedAt: number;

  constructor(
    readonly session: HostSession,
    private readonly clock: Clock,
    private readonly tasksRun: RunningTasks,
  ) {
    this.lastActive = this.lastHeard = this.openedAt = clock.now();
    // The persistent shell's idle clock counts this session's activity too (one owner of its idle close).
    if (!session.disposed) reportSessionActivity(session, () => this.idleFor());
  }

  /** A request (or, with `stream`, an event stream) starts; call the result when it ends. */
  begin(stream = false): () => void {
    if (stream) this.streams++;
    else this.requests++;
    this.touch();
    this.lastHeard = this.lastActive;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (stream) this.streams--;
      else this.requests--;
      this.touch();
      this.lastHeard = this.lastActive;
    };
  }

  /** Since when its client has had no request and no event stream open (its tasks do not count); undefined while it has. */
  unheardSince(): number | undefined {
    return this.requests > 0 || this.streams > 0 ? undefined : this.lastHeard;
  }

  /** When the idle stages will end it under `settings` if nothing changes (its lifetime, or abandonment); undefined: not planned. */
  endsAt(settings: IdleSettings): number | undefined {
    const unheard = this.unheardSince();
    const abandoned = settings.sessionIdleMs > 0 && unheard !== undefined ? unheard + settings.sessionIdleMs : undefined;
    const expires = settings.lifetimeMs ? this.openedAt + settings.lifetimeMs : undefined;
    if (abandoned === undefined) return expires;
    return expires === undefined ? abandoned : Math.min(abandoned, expires);
  }

  /** When it became idle; undefined while it is busy (which also moves its idle clock on). */
  idleSince(): number | undefined {
    if (this.requests > 0 || this.streams > 0 || this.tasksRun(this.session)) {
      this.touch();
      return undefined;
    }
    return this.lastActive;
  }

  /** When it was last busy (now, while it is). */
  lastActiveAt(): number {
    this.idleSince();
    return this.lastActive;
  }

  /** How long it has been idle; undefined while it is busy. */
  idleFor(): number | undefined {
    const since = this.idleSince();
    return since === undefined ? undefined : this.clock.now() - since;
  }

  private touch(): void {
    this.lastActive = this.clock.now();
  }
}

/** Walks a table's sessions now and then (`sweep`) and hands one abandoned for `sessionIdleMs`, or past its lifetime, to `release`. */
export class IdleStages {
  private timer?: NodeJS.Timeout;

  constructor(
    readonly settings: IdleSettings,
    private readonly clock: Clock,
    private readonly sessions: () => Iterable<SessionActivity>,
    private readonly release: (activity: SessionActivity, cause: StageCause) => void,
  ) {}

  /** Sweeps every quarter of the shorter limit (at least every 15 s, at most every 100 ms); none when both are off. */
  start(): void {
    const limits = [this.settings.sessionIdleMs, this.settings.lifetimeMs ?? 0].filter((ms) => ms > 0);
    if (limits.length === 0) return;
    this.timer = setInterval(() => this.sweep(), Math.min(15_000, Math.max(100, Math.min(...limits) / 4)));
    // The sweep alone must not keep the process alive.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One pass: releases the sessions past their lifetime or abandoned for `sessionIdleMs`. */
  sweep(): void {
    const now = this.clock.now();
    const { lifetimeMs } = this.settings;
    for (const activity of [...this.sessions()]) {
      const endsAt = activity.endsAt(this.settings);
      if (endsAt === undefined || now < endsAt) continue;
      this.release(activity, lifetimeMs && now >= activity.openedAt + lifetimeMs ? 'lifetime' : 'idle');
    }
  }
}
