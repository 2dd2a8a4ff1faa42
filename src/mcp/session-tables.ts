import type { DshHost } from '../container/dsh-host.js';
import type { Clock, Logger } from '../providers/logging/logger.js';
import { HttpSessionTable, type SessionEndReason } from './legacy/http-sessions.js';
import { auditEvent } from '../providers/observability/audit-events.js';
import { HostMetrics } from '../providers/observability/host-metrics.js';
import { runningTasksOf, type IdleSettings } from './sessions/idle-stages.js';
import { SessionCounter } from './sessions/session-counter.js';
import { SessionHandles } from './sessions/session-handles.js';
import type { ServerRelease } from './sessions/released-sessions.js';
import type { SharedSessions } from './sessions/shared-sessions.js';

/** What the HTTP server's options say about sessions. */
interface SessionTableOptions {
  readonly workspace: string;
  readonly logger?: Logger;
  readonly idleTimeoutMs: number;
  /** `--session-lifetime`: every session ends this long after it opened; 0 never. */
  readonly sessionLifetimeMs?: number;
  /** How long a session must be idle before a new one may take its place (default 5 s). */
  readonly evictAfterMs?: number;
  readonly maxSessions: number;
  readonly maxSessionsPerCaller?: number;
  readonly clock?: Clock;
  readonly onSessionClosed?: (id: string, reason: SessionEndReason, hostSessionId: string) => void;
  /** With `--shared-sessions`: the handles' sessions are recorded and found there too. */
  readonly shared?: SharedSessions;
}

/** Both eras' session tables over one session counter and one idle policy. */
export function sessionTables(host: DshHost, options: SessionTableOptions): { sessions: HttpSessionTable; handles: SessionHandles } {
  const log = options.logger;
  const counter = new SessionCounter({
    maxSessions: options.maxSessions,
    ...(options.maxSessionsPerCaller !== undefined ? { maxSessionsPerCaller: options.maxSessionsPerCaller } : {}),
  });
  const idle: IdleSettings = {
    sessionIdleMs: options.idleTimeoutMs,
    ...(options.evictAfterMs !== undefined ? { evictAfterMs: options.evictAfterMs } : {}),
    ...(options.sessionLifetimeMs ? { lifetimeMs: options.sessionLifetimeMs } : {}),
  };
  // A session the server ended with its tasks: dsh_sessions_released_total{reason}, and one audit record.
  const released = (release: ServerRelease) => {
    if (host.isBound(HostMetrics)) host.get(HostMetrics).update((metrics) => metrics.sessionsReleased.inc({ reason: release.kind }));
    void auditEvent(
      host,
      {
        event: 'session_ended',
        time: new Date().toISOString(),
        reason: release.kind,
        clientSession: release.clientSession,
        session: release.session,
        caller: release.caller || null,
        withRunningTasks: release.withRunningTasks,
      },
      log,
    );
  };
  const runningTasks = runningTasksOf(host);
  const clock = options.clock ? { clock: options.clock } : {};
  const sessions = new HttpSessionTable({
    idle,
    counter,
    runningTasks,
    ...clock,
    ...(log ? { logger: log } : {}),
    onReleased: released,
    onSessionClosed: (id, reason, hostSessionId) => {
      log?.info(`mcp http: session ${hostSessionId} ended (${reason})`);
      options.onSessionClosed?.(id, reason, hostSessionId);
    },
  });
  const handles = new SessionHandles(host, {
    cwd: options.workspace,
    idle,
    counter,
    runningTasks,
    onReleased: released,
    ...clock,
    ...(log ? { logger: log } : {}),
    ...(options.shared ? { shared: options.shared } : {}),
  });
  return { sessions, handles };
}
