import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../core/tool-contract.js';
import type { SandboxMode } from './sandbox-mode.js';
import type { LimitGroup } from './cgroup-limiter.js';

/** What a call asks of the confinement; every field optional (the session's own mode and workspace otherwise). */
export interface ConfinementRequest {
  /** A mode for this call only (an approved escalation); else the session's mode. */
  readonly mode?: SandboxMode;
  /** The workspace root the caller resolved; checked against the session's pinned workspace. */
  readonly workspaceRoot?: string;
}

export interface WrapOptions {
  /** Host paths the command may read (bound read-only at the same path), e.g. the session's spill directory. */
  readonly readable?: readonly string[];
  /** The directory the command starts in; it must exist inside the sandbox (no silent fallback to `$HOME`). */
  readonly cwd?: string;
  /** The call's resource-limit group (from `newLimitGroup`); without one, only rlimits bound the command. */
  readonly limits?: LimitGroup;
}

/** How one command (or one persistent shell) of a session runs confined. */
export interface ConfinedCommand {
  /** The confined mode (never `danger-full-access`: that is not confined). */
  readonly mode: SandboxMode;
  /** The session's workspace root, as pinned. */
  readonly workspaceRoot: string;
  /** Two confinements with the same key confine the same way; a shell started under another key must be replaced. */
  readonly key: string;
  /**
   * The argv that runs `argv` confined. The wrapper keeps the command in the
   * caller's process group and on the caller's terminal (a PTY stays the
   * shell's controlling terminal).
   */
  wrapArgv(argv: readonly string[], options?: WrapOptions): string[];
  /** True when a failed command's output carries this backend's denial signature. */
  isDenial(output: string): boolean;
  /**
   * A fresh cgroup set for one call or one persistent shell, undefined when
   * the machine offers none. The caller owns it: it reads `takeReached()`
   * when the command (or a persistent shell's call) ends and `release()`s it
   * when the command is gone.
   */
  newLimitGroup?(): LimitGroup | undefined;
  /** True when the command runs in a PID namespace of its own (see `SandboxProvider.pidNamespace`). */
  readonly pidNamespace?: boolean;
}

/**
 * The one seam every shell backend confines through (one-shot executor, PTY
 * backend, container backends). Optional: a backend without it runs
 * unconfined.
 *
 * Obligations: `forSession` returns undefined only for an unconfined mode
 * (`danger-full-access`), and throws — never returns something wider — when
 * the session cannot be confined as asked: `SandboxUnavailableError` when the
 * backend cannot confine, an `Error` when the session's workspace is no
 * longer the directory it was when the session started, or is a system
 * directory. Per-session resources (a private `/tmp`) live until the session
 * is disposed, host-level ones until `dispose()`.
 */
export interface Confinement {
  /** The deployment default mode (tools adapt their schema to it). */
  readonly defaultMode: SandboxMode;
  forSession(session: SessionContext | undefined, request?: ConfinementRequest): ConfinedCommand | undefined;
  dispose?(): Promise<void> | void;
}

export const Confinement: ServiceIdentifier<Confinement> = Symbol.for('dsh.Confinement');
