import type { Redactor } from '../../output-filter/redactor.js';
import type { PrestartedShell } from './prestarted-shell.js';
import type { ExecSpec, ExecutorConfig } from './shell-executor.js';
import type { SpillDirectory } from './spill-directory.js';

/** What `ShellProcess.spawn` runs, and how. */
export interface ShellProcessOptions {
  readonly spec: ExecSpec;
  readonly config: ExecutorConfig;
  readonly spills: SpillDirectory;
  /** Foreground only: stop with reason 'timeout' after this long. */
  readonly timeoutMs?: number;
  /** Foreground only: stop with reason 'abort' when this fires. */
  readonly signal?: AbortSignal;
  /**
   * Foreground only: asked when the timeout fires on a still-running
   * command; true keeps it running (see `promoted`) instead of stopping it.
   */
  readonly keepOnTimeout?: () => boolean;
  /** Foreground only: ask `keepOnTimeout` this early too (see RunOptions.promoteAfterMs). */
  readonly promoteAfterMs?: number;
  /** Foreground only: on abort, ask `keepOnTimeout` before stopping (see RunOptions.promoteOnAbort). */
  readonly promoteOnAbort?: boolean;
  /** Sees every output chunk after it was captured; `stream` is 0 for stdout, 1 for stderr. */
  readonly onOutput?: (chunk: Buffer, stream: 0 | 1) => void;
  /**
   * Confining executors: the argv actually spawned in place of
   * `[shellPath, '-c', command]` (e.g. under bwrap). The wrapper must keep the
   * command in the spawned process group so group signals still reach it.
   */
  readonly wrapArgv?: (argv: string[], spec: ExecSpec) => string[];
  /** Secrets to keep out of the captures and spill files. */
  readonly redactor?: Redactor;
  /** A shell started ahead (see prestarted-shell.ts): it becomes this command when it can take the call's env. */
  readonly prestarted?: PrestartedShell;
  /** Set when `wrapArgv` runs the command under the namespace reaper: its report arrives on the reaper's channel (see namespace-reaper.ts). */
  readonly reaperChannel?: boolean;
}
