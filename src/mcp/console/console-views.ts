import type { DshHost } from '../../container/dsh-host.js';
import { KubernetesConfigToken } from '../../providers/backends/kubernetes/kubernetes-config.js';
import type { AuditRecord } from '../../providers/observability/audit-sink.js';
import { HostMetrics } from '../../providers/observability/host-metrics.js';
import { TaskRuntime } from '../../providers/tasks/task-runtime.js';
import type { LiveSession } from '../sessions/idle-session-table.js';
import type { ConsoleApprovalAnswerer, PendingApproval } from './console-answerer.js';
import type { ConsoleAuditFeed, FeedEntry } from './console-feed.js';

/** Where the console's data comes from: the server's own tables, none copied. */
export interface ConsoleSources {
  readonly host: DshHost;
  /** Both protocol eras' live sessions. */
  readonly sessions: () => readonly LiveSession[];
  readonly answerer: ConsoleApprovalAnswerer;
  readonly feed: ConsoleAuditFeed;
}

/** One live session as the sessions view lists it. */
interface SessionView {
  readonly id: string;
  readonly caller: string | null;
  /** Where its commands run, as its last call said: local, sandbox, container or pod; null before its first call. */
  readonly site: string | null;
  readonly sandboxMode: string | null;
  readonly openedAt: number;
  readonly lastActiveAt: number;
  readonly shellOpen: boolean;
  readonly runningTasks: number;
  readonly tasks: number;
}

/** A task of a session, with what memory still holds of its output (at most `TAIL_CHARS`). */
interface TaskView {
  readonly id: string;
  readonly label: string;
  readonly status: string;
  readonly detail: string | null;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly tail: string;
}

/** A task's tail is at most this long (its last characters). */
const TAIL_CHARS = 16 * 1024;
/** A session's view lists its last calls, at most this many. */
const RECENT_CALLS = 50;

function isCallRecord(entry: FeedEntry): entry is AuditRecord {
  return !('event' in entry);
}

/** Every live session, oldest first. */
export function sessionsView(sources: ConsoleSources): SessionView[] {
  const metrics = sources.host.isBound(HostMetrics) ? sources.host.get(HostMetrics) : undefined;
  const pod = sources.host.isBound(KubernetesConfigToken);
  const lastCall = new Map<string, AuditRecord>();
  for (const entry of sources.feed.recent()) if (isCallRecord(entry) && entry.session !== null) lastCall.set(entry.session, entry);
  return sources
    .sessions()
    .filter(({ activity }) => !activity.session.disposed)
    .map(({ caller, activity }) => {
      const session = activity.session;
      const tasks = tasksOf(sources.host, session);
      const last = lastCall.get(session.id);
      return {
        id: session.id,
        caller: caller ?? null,
        site: last === undefined ? null : last.mode === 'container' && pod ? 'pod' : last.mode,
        sandboxMode: last?.sandboxMode ?? null,
        openedAt: activity.openedAt,
        lastActiveAt: activity.lastActiveAt(),
        shellOpen: metrics?.shellIsOpen(session.id) ?? false,
        runningTasks: tasks.filter((task) => task.status === 'running' || task.status === 'stopping').length,
        tasks: tasks.length,
      };
    })
    .sort((a, b) => a.openedAt - b.openedAt);
}

/** One session's recent calls (as audited) and its tasks with their tails; undefined for a session not live. */
export function sessionDetail(sources: ConsoleSources, id: string): { readonly calls: AuditRecord[]; readonly tasks: TaskView[] } | undefined {
  const live = sources.sessions().find(({ activity }) => activity.session.id === id && !activity.session.disposed);
  if (!live) return undefined;
  const session = live.activity.session;
  const calls = sources.feed.recent().filter((entry): entry is AuditRecord => isCallRecord(entry) && entry.session === id);
  const runtime = sources.host.isBound(TaskRuntime) ? sources.host.get(TaskRuntime) : undefined;
  const tasks = tasksOf(sources.host, session).map((task) => ({
    id: task.id,
    label: task.label,
    status: task.status,
    detail: task.detail ?? null,
    startedAt: task.startedAt,
    endedAt: task.endedAt ?? null,
    tail: (runtime?.peek?.(session, task.id) ?? '').slice(-TAIL_CHARS),
  }));
  return { calls: calls.slice(-RECENT_CALLS).reverse(), tasks };
}

/** The approvals waiting for an operator. */
export function approvalsView(sources: ConsoleSources): PendingApproval[] {
  return sources.answerer.pending();
}

/** The audit stream's filters: each, when given, must equal the entry's field. */
interface AuditFilter {
  readonly caller?: string;
  readonly session?: string;
  readonly outcome?: string;
}

/** The most recent entries (newest first, at most `limit`) that pass `filter`. */
export function auditView(sources: ConsoleSources, filter: AuditFilter, limit = 200): FeedEntry[] {
  const passes = (entry: FeedEntry) => {
    const fields = entry as unknown as Record<string, unknown>;
    const outcome = isCallRecord(entry) ? entry.outcome : entry.event;
    if (filter.caller !== undefined && fields.caller !== filter.caller) return false;
    if (filter.session !== undefined && fields.session !== filter.session) return false;
    return filter.outcome === undefined || outcome === filter.outcome;
  };
  return sources.feed.recent().filter(passes).slice(-limit).reverse();
}

function tasksOf(host: DshHost, session: LiveSession['activity']['session']) {
  if (!host.isBound(TaskRuntime)) return [];
  try {
    return host.get(TaskRuntime).list(session);
  } catch {
    // A session disposed between the listing and now has no tasks to show.
    return [];
  }
}
