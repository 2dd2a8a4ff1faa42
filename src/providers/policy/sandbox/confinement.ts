import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { SandboxMode } from '../../../core/sandbox-mode.js';
import type { CommandConfinement, WrapOptions } from '../../exec/process/command-confinement.js';

/** What a call asks of the confinement; every field optional (the session's own mode and workspace otherwise). */
export interface ConfinementRequest {
  /** A mode for this call only (an approved escalation); else the session's mode. */
  readonly mode?: SandboxMode;
  /** The workspace root the caller resolved (real path); checked against the session's pinned workspace. */
  readonly workspaceRoot?: string;
}

export type { WrapOptions };

/** How one command (or one persistent shell) of a session runs confined: the kernel's `CommandConfinement` and what it was decided from. */
export interface ConfinedCommand extends CommandConfinement {
  /** The confined mode (never `danger-full-access`: that is not confined). */
  readonly mode: SandboxMode;
  /** The session's workspace root, as pinned. */
  readonly workspaceRoot: string;
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
