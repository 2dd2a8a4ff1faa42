import type { DshHost } from '../container/dsh-host.js';
import type { HostSession } from '../container/host-session.js';
import type { Clock, Logger } from '../providers/logging/logger.js';
import { TaskRuntime } from '../providers/tasks/task-runtime.js';
import { PersistentBashConfig, resolvePersistentBashConfig } from '../tools/persistent-bash/persistent-bash-config.js';

/*
 * Clients that never say goodbye (no DELETE) leave sessions behind; clients
 * that only listen (an open event stream, a background task) must keep
 * theirs. A session is busy while a request of it is in flight, an event
 * stream of it is open, or one of its background tasks runs; once none of
 * that is true it is idle, and its resources go in two stages: its shell
 * (whatever holds a process: the persistent shell, PTYs, a pre-started
 * shell) after `shellIdleMs`, the session itself after `sessionIdleMs`.
 */

export interface IdleSettings {
  /** `--idle-timeout`: an idle session is released after this long; 0 never. */
  readonly sessionIdleMs: number;
  /** `persistent.idleCloseMs`: an idle session's shell is closed after this long; 0 never (it goes with the session). */
  readonly shellIdleMs: number;
  /**
   * A session idle at least this long may be released to make room for a new
   * one when a cap is reached (a session just opened, or between two calls,
   * is not fair game); default `EVICT_AFTER_MS`.
   */
  readonly evictAfterMs?: number;
}

/** How long a session must have been idle before a new session may take its place. */
export const EVICT_AFTER_MS = 5000;

/** Whether a session idle since `idleSince` may be released to make room at `now`. */
export function evictable(idleSince: number | undefined, now: number, settings: IdleSettings): idleSince is number {
  return idleSince !== undefined && now - idleSince >= (settings.evictAfterMs ?? EVICT_AFTER_MS);
}

/** How long a duration is, as the notices say it. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The notice the next result of a session carries after its shell was closed for idleness. */
export function shellReleasedNotice(shellIdleMs: number): string {
  return `[session idle: its shell was closed after ${seconds(shellIdleMs)} without a request (persistent.idleCloseMs); cwd, variables and jobs of that shell are gone, the next command starts a fresh shell in the workspace; background tasks and their output are kept]`;
}

/** Whether `session` has a background task that has not settled. */
export type RunningTasks = (session: HostSession) => boolean;

/** Reads the host's task runtime (none bound: no tasks). */
export function runningTasksOf(host: DshHost): RunningTasks {
  if (!host.isBound(TaskRuntime)) return () => false;
  const tasks = host.get(TaskRuntime);
  return (session) => tasks.list(session).some((task) => task.ownerId === session.id && (task.status === 'running' || task.status === 'stopping'));
}

/** The shell's own idle close (`persistent.idleCloseMs`, its default when the host binds none). */
export function shellIdleMsOf(host: DshHost): number {
  return resolvePersistentBashConfig(host.isBound(PersistentBashConfig) ? host.get(PersistentBashConfig) : undefined).idleCloseMs;
}

/** One session's activity: what keeps it busy, and since when it is idle. */
export class SessionActivity {
  private requests = 0;
  private streams = 0;
  private lastActive: number;
  /** Its shell was closed for idleness and nothing ran since. */
  shellReleased = false;

  constructor(
    readonly session: HostSession,
    private readonly clock: Clock,
    private readonly tasksRun: RunningTasks,
  ) {
    this.lastActive = clock.now();
  }

  /** A request (or, with `stream`, an event stream) starts; call the result when it ends. */
  begin(stream = false): () => void {
    if (stream) this.streams++;
    else this.requests++;
    this.touch();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (stream) this.streams--;
      else this.requests--;
      this.touch();
    };
  }

  /** When it became idle; undefined while it is busy (which also moves its idle clock on). */
  idleSince(): number | undefined {
    if (this.requests > 0 || this.streams > 0 || this.tasksRun(this.session)) {
      this.touch();
      return undefined;
    }
    return this.lastActive;
  }

  private touch(): void {
    this.lastActive = this.clock.now();
    this.shellReleased = false;
  }
}

/**
 * Walks a table's sessions now and then (`sweep`): closes the shell of one
 * idle for `shellIdleMs` (announced by a notice in its next result) and hands
 * one idle for `sessionIdleMs` to `release`.
 */
export class IdleStages {
  private timer?: NodeJS.Timeout;

  constructor(
    readonly settings: IdleSettings,
    private readonly clock: Clock,
    private readonly sessions: () => Iterable<SessionActivity>,
    private readonly release: (activity: SessionActivity) => void,
    private readonly logger?: Logger,
  ) {}

  /** Sweeps every quarter of the shorter stage (at least every 15 s, at most every 100 ms); none when both are off. */
  start(): void {
    const stages = [this.settings.sessionIdleMs, this.settings.shellIdleMs].filter((ms) => ms > 0);
    if (stages.length === 0) return;
    const every = Math.min(15_000, Math.max(100, Math.min(...stages) / 4));
    this.timer = setInterval(() => void this.sweep(), every);
    // The sweep alone must not keep the process alive.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One pass; resolves once the shells it closed are gone. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const { sessionIdleMs, shellIdleMs } = this.settings;
    const closing: Array<Promise<void>> = [];
    for (const activity of [...this.sessions()]) {
      const since = activity.idleSince();
      if (since === undefined) continue;
      if (sessionIdleMs > 0 && now - since >= sessionIdleMs) this.release(activity);
      else if (shellIdleMs > 0 && !activity.shellReleased && now - since >= shellIdleMs) closing.push(this.releaseShell(activity));
    }
    await Promise.all(closing);
  }

  private async releaseShell(activity: SessionActivity): Promise<void> {
    activity.shellReleased = true;
    const released = await activity.session.scope.releaseProcesses();
    if (released.length === 0) return;
    // Only a shell the model could use again (its cwd, variables) is worth a notice; a pre-started one goes silently.
    if (released.some((key) => key.outlivesCall)) activity.session.notify(shellReleasedNotice(this.settings.shellIdleMs));
    this.logger?.info(`mcp: session ${activity.session.id} idle: released ${released.map((key) => key.name).join(', ')}`);
  }
}
