import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { DshHost } from '../container/dsh-host.js';
import type { Logger } from '../providers/logging/logger.js';

/** Default seconds between two looks for what dead servers left (docs/kubernetes.md#reaping-what-a-crashed-server-leaves). */
const DEFAULT_REAP_INTERVAL_S = 15;

export interface ReapFlags {
  readonly reapInterval: number;
}

/** Adds `--reap-interval` to `serve`. */
export function addReapOption(command: Command): Command {
  return command.option(
    '--reap-interval <seconds>',
    'container and pod modes: look this often for containers, pods and leases that dead servers left, whether or not this server holds sessions',
    parseInterval,
    DEFAULT_REAP_INTERVAL_S,
  );
}

function parseInterval(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0.1 || seconds > 3600) throw new InvalidArgumentError('expected seconds: a number from 0.1 to 3600');
  return seconds;
}

/**
 * Container and pod modes: removes what dead servers left (containers of
 * dead processes on this machine, expired leases and their pods, session
 * directories) now and then every `intervalSeconds`, for as long as the server
 * runs — a server holding no session reaps too. An account the engine refuses
 * the looks (RBAC: list pods or leases) fails the start: a reaper that cannot
 * see leaves orphans running forever. Resolves with the stop function.
 */
export async function startReaper(host: DshHost, logger: Logger, intervalSeconds: number): Promise<() => void> {
  const { ContainerEngine } = await import('../providers/exec/engine/container-engine.js');
  if (!host.isBound(ContainerEngine)) return () => undefined;
  const { reapDeadInstances } = await import('../providers/exec/engine/orphan-reaper.js');
  const engine = host.get(ContainerEngine);
  let lastFailure: string | undefined;
  const reap = async (atStart: boolean): Promise<void> => {
    try {
      const removed = await reapDeadInstances(engine);
      lastFailure = undefined;
      if (removed > 0) logger.info(`removed ${removed} container(s) left by servers that are no longer running`, { event: 'reap', removed });
    } catch (error) {
      const message = (error as Error).message;
      if (atStart && refused(error)) throw new Error(`cannot look for sessions that dead servers left: ${message}`);
      // One line per distinct failure: an engine that stays away does not fill the log.
      if (message !== lastFailure) logger.warn(`could not look for containers left by earlier servers: ${message}`, { event: 'reap_failed' });
      lastFailure = message;
    }
  };
  await reap(true);
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void reap(false).finally(() => (running = false));
  }, intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/** The engine answered, and said no (401/403): a configuration error, not an outage. */
function refused(error: unknown): boolean {
  const status = (error as { code?: unknown; statusCode?: unknown }).code ?? (error as { statusCode?: unknown }).statusCode;
  return status === 401 || status === 403;
}
