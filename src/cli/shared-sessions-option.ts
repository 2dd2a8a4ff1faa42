import { InvalidArgumentError, type Command } from 'commander';
import type { DshHost } from '../container/dsh-host.js';
import type { Logger } from '../providers/logging/logger.js';
import type { SessionRegistry } from '../providers/registry/session-registry.js';
import { isUsedMarker } from '../providers/registry/used-marker.js';

/** A sandbox younger than this is never swept for lack of a record: a 2026-era session's sandbox exists before its handle is recorded, for as long as its first call runs (up to executor.maxTimeoutMs). */
const ORPHAN_GRACE_MS = 30 * 60_000;

export interface SharedSessionFlags {
  readonly sharedSessions?: boolean;
  readonly leaveSessions?: boolean;
}

/** Adds `--shared-sessions` and `--leave-sessions` to `serve`. */
export function addSharedSessionOptions(command: Command): Command {
  return command
    .option(
      '--shared-sessions',
      'HTTP in container and pod modes: record each session beside the engine, so that every replica over the same engine serves it and it outlives this process (docs/shared-sessions.md)',
    )
    .option('--leave-sessions', 'with --shared-sessions: on SIGTERM leave the sessions to a later replica even when no other one is running');
}

/** Refuses combinations that cannot share a session, naming the flag to change. */
export function checkSharedSessionFlags(options: SharedSessionFlags, http: boolean, engineMode: boolean): void {
  if (options.leaveSessions === true && options.sharedSessions !== true) throw new InvalidArgumentError('--leave-sessions needs --shared-sessions');
  if (options.sharedSessions !== true) return;
  if (!http) throw new InvalidArgumentError('--shared-sessions needs --http: a stdio session lives and ends with its client\'s pipe');
  if (!engineMode) {
    throw new InvalidArgumentError('--shared-sessions needs --container or --kubernetes: a local or bwrap session\'s processes are children of this server and end with it');
  }
  // A persistent shell is the session's, held in its sandbox, driven by any replica (docs/shared-sessions.md#the-persistent-shell).
}

/** What the HTTP server and the stop need of the shared sessions. */
export interface SharedSessions {
  readonly registry: SessionRegistry;
  /** Ends a session's sandbox, wherever it is served. */
  endShared(sessionId: string): Promise<void>;
  /** Stops the expiry pass; ends every recorded session unless another replica is alive or `--leave-sessions`. Runs before the host is disposed. */
  stop(): Promise<void>;
  /** A start that failed: stops the pass and leaves the replicas, ending nothing. */
  abandon(): Promise<void>;
}

/** What the expiry pass needs of the session sandboxes (`SessionContainers`). */
export interface SharedSandboxes {
  end(sessionId: string): Promise<void>;
  sweepOrphans(liveSessionIds: ReadonlySet<string>, graceMs: number): Promise<number>;
}

/** Starts the shared sessions of the host's composition (see `runSharedSessions`). */
export async function startSharedSessions(host: DshHost, logger: Logger, intervalSeconds: number, leaveOnStop: boolean): Promise<SharedSessions> {
  const [{ SessionRegistry }, { SessionContainersToken }] = await Promise.all([
    import('../providers/registry/session-registry.js'),
    import('../providers/exec/engine/session-containers.js'),
  ]);
  return runSharedSessions(host.get(SessionRegistry), host.get(SessionContainersToken), logger, intervalSeconds, leaveOnStop);
}

/**
 * Joins the replicas over the same records and, every `intervalSeconds`,
 * ends the sessions whose record expired (each claimed by exactly one
 * replica) and removes sandboxes whose record is gone.
 */
export async function runSharedSessions(
  registry: SessionRegistry,
  containers: SharedSandboxes,
  logger: Logger,
  intervalSeconds: number,
  leaveOnStop: boolean,
): Promise<SharedSessions & { passNow(): Promise<void> }> {
  await registry.join();
  logger.info(`shared sessions: records in ${registry.describe}`);
  const endAll = async (records: ReadonlyArray<{ readonly sessionId: string }>, why: string): Promise<void> => {
    await Promise.all(
      // A used-value marker (an approval answer's nonce) has no sandbox: it just goes.
      records.filter((record) => !isUsedMarker(record)).map(async ({ sessionId }) => {
        await containers.end(sessionId);
        logger.info(`shared session ${sessionId} ended (${why})`, { event: 'shared_session_end', session: sessionId });
      }),
    );
  };
  let lastFailure: string | undefined;
  const pass = async (): Promise<void> => {
    try {
      await endAll(await registry.claimExpired(), 'idle, or past its lifetime');
      const swept = await containers.sweepOrphans(await registry.liveSessionIds(), ORPHAN_GRACE_MS);
      if (swept > 0) logger.info(`removed ${swept} shared sandbox(es) whose session record is gone`, { event: 'shared_sweep', removed: swept });
      lastFailure = undefined;
    } catch (error) {
      const message = (error as Error).message;
      if (message !== lastFailure) logger.warn(`shared sessions: could not look for expired sessions: ${message}`, { event: 'shared_sweep_failed' });
      lastFailure = message;
    }
  };
  let running: Promise<void> | undefined;
  const timer = setInterval(() => void passNow(), intervalSeconds * 1000);
  timer.unref();
  const passNow = (): Promise<void> => (running ??= pass().finally(() => (running = undefined)));
  return {
    registry,
    passNow,
    endShared: (sessionId) => containers.end(sessionId),
    abandon: async () => {
      clearInterval(timer);
      await running;
      await registry.leave();
    },
    stop: async () => {
      clearInterval(timer);
      await running;
      try {
        if (!leaveOnStop && !(await registry.othersAlive())) {
          // Nobody is left to serve them: end them all (every record reads as expired at the end of time).
          await endAll(await registry.claimExpired(Number.POSITIVE_INFINITY), 'the last replica stopped');
        } else logger.info('shared sessions: left to the other replicas');
      } finally {
        await registry.leave();
      }
    },
  };
}
