import type { HostConfig } from '../../core/host-config.js';
import type { SessionContext } from '../../core/tool-contract.js';
import type { PersistentBashConfig } from './persistent-bash-config.js';

/** Everything one persistent call runs with, defaults filled. */
export interface PersistentCallSpec {
  /** The terminal backend type a new shell opens on. */
  readonly backendType: string;
  /** Where a new shell starts: the session's cwd, else the host workspace, else the server's cwd. */
  readonly workdir: string;
  readonly timeoutMs: number;
  /** Characters of output shown to the model (the beginning). */
  readonly maxOutputChars: number;
  /** Raw terminal text kept per send: it shrinks when normalized, so enough to fill the clip window. */
  readonly scrollbackChars: number;
}

/**
 * Fills a persistent call's defaults, explicitly (the counterpart of the
 * one-shot `ShellExecutor.resolve`), so running a call never hides one.
 */
export function resolvePersistentCall(session: SessionContext, config: PersistentBashConfig, host?: HostConfig): PersistentCallSpec {
  return {
    backendType: config.backendType,
    workdir: session.cwd ?? host?.workspace ?? process.cwd(),
    timeoutMs: config.timeoutMs,
    maxOutputChars: config.maxOutputChars,
    scrollbackChars: config.maxOutputChars * 2 + 1024,
  };
}
