import type { DshHost } from '../container/dsh-host.js';
import type { Logger } from '../providers/logging/logger.js';
import type { RunningServer } from './stdio-server.js';

/** How long disposal may take (after the drain) before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 10_000;
/** `--drain-timeout` default: how long calls in flight may run on after a stop request. */
const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;

export interface LifecycleOptions {
  /** How long calls in flight may take to answer after a stop request, before they are cancelled (default 30 s). */
  readonly drainTimeoutMs?: number;
  /** On SIGHUP: reopen the file sinks at their configured paths (log rotation); the server keeps serving. */
  readonly onHangup?: () => Promise<unknown>;
  /** After every connection closed, before the host is disposed (shared sessions: end them, or leave them to another replica). */
  readonly beforeDispose?: () => Promise<void>;
}

/**
 * Runs `server` until its clients are gone (stdio: stdin closed) or the
 * process gets SIGINT/SIGTERM, then drains it (no new sessions or calls;
 * calls in flight answer, or are cancelled after the drain timeout and
 * answer that), closes every connection, disposes the host (no child
 * process survives) and resolves with the exit code.
 *
 * While it runs, an uncaught exception shuts down the same way (exit code 1)
 * and an unhandled rejection is logged instead of crashing the process:
 * a crash would orphan every child the sessions started. A second signal
 * exits at once. SIGHUP does not stop it: it reopens the file sinks (`onHangup`).
 */
export async function runUntilStopped(server: RunningServer, host: DshHost, logger: Logger, options: LifecycleOptions = {}): Promise<number> {
  let requestStop!: (reason: { why: string; code: number }) => void;
  const stopRequested = new Promise<{ why: string; code: number }>((resolve) => (requestStop = resolve));
  let signals = 0;
  let clientGone = false;
  const hurry = new AbortController();

  const onSignal = (signal: NodeJS.Signals) => {
    // The MCP stdio shutdown: the client closes stdin, waits, sends SIGTERM,
    // and SIGKILLs about 2 s later (the SDK clients' close()). After the
    // client left, a signal ends the drain at once: cancel what runs, answer
    // if stdout is still open, dispose, exit 0, before that SIGKILL.
    if (clientGone && !hurry.signal.aborted) {
      logger.info(`${signal} after the client closed stdin: cancelling the calls still running and exiting`);
      hurry.abort();
      return;
    }
    // Otherwise a second signal means "stop waiting"; the reaper watchdog and
    // the containers' lifelines still end every command.
    if (++signals > 1 || hurry.signal.aborted) {
      logger.warn(`${signal} again: exiting without waiting for calls or cleanup`);
      process.exit(1);
    }
    requestStop({ why: signal, code: 0 });
  };
  // SIGHUP (logrotate's postrotate, a closed terminal) would end node at once: as daemons do, reopen the files instead.
  const onHangup = () => {
    logger.info('SIGHUP: reopening log files');
    void options.onHangup?.().catch((error: unknown) => logger.error(`SIGHUP: ${error instanceof Error ? error.message : String(error)}`));
  };
  const onException = (error: Error) => {
    logger.error(`uncaught exception: ${error.stack ?? error.message}`);
    requestStop({ why: 'uncaught exception', code: 1 });
  };
  const onRejection = (reason: unknown) => {
    logger.error(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onHangup);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);

  try {
    const { why, code } = await Promise.race([
      server.closed.then((failure) => {
        if (failure) return { why: failure.why, code: 1 };
        clientGone = signals === 0;
        return { why: 'client disconnected', code: 0 };
      }),
      stopRequested,
    ]);
    if (code === 0) {
      logger.info(`shutting down (${why})`);
      await server.drain(options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS, hurry.signal);
    } else logger.error(`stopping: ${why}`);
    const deadline = setTimeout(() => {
      logger.error(`cleanup did not finish within ${SHUTDOWN_DEADLINE_MS} ms; exiting`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    try {
      await server.close();
      await options.beforeDispose?.().catch((error: unknown) => logger.error(`stopping: ${error instanceof Error ? error.message : String(error)}`));
    } finally {
      await host.dispose();
      clearTimeout(deadline);
    }
    return code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onHangup);
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  }
}
