import type { PtyExit } from './bash-pty-state.js';

/**
 * The transport a `MarkerShell` drives: an interactive bash on a terminal,
 * either a local PTY (bash-pty-session.ts) or a TTY exec in a session's
 * container (container-shell-session.ts). The marker protocol, the send
 * states and the stdin-wait detection are the same over both; only how
 * bytes travel and how processes are killed differ.
 */
export interface ShellChannel {
  /** The shell's pid as this machine's /proc shows it; undefined turns stdin-wait detection off. */
  readonly hostPid: number | undefined;
  write(data: string): void;
  /** Registers the output and exit listeners; called once, before the first write. */
  listen(onData: (text: string) => void, onExit: (exit: PtyExit) => void): void;
  /**
   * Kills the shell's processes: with `shellAlive` the shell and its whole
   * tree; without, what it left behind after exiting on its own.
   */
  kill(shellAlive: boolean): Promise<void>;
  /** Frees the transport once the shell has ended (optional). */
  release?(): void;
}

/** How startup failures name the shell and what they suggest checking. */
export interface ShellIdentity {
  /** `bash`, `bash in the container`. */
  readonly name: string;
  /** Appended to an exit during startup: what to check. */
  readonly hint: string;
  /** The cause of a startup exit the channel can name (e.g. a missing working directory); the error is then just that. */
  readonly explainExit?: (exit: PtyExit) => string | undefined;
}

/** A shell that could not start for a cause its message names exactly: callers show it as is. */
export class ShellStartRefused extends Error {}

/** Why a shell did not start: it did not answer within `timeoutMs`, or it exited (how, when known). */
export function startFailure(identity: ShellIdentity, why: { readonly timeoutMs: number } | PtyExit | undefined): Error {
  const { name, hint } = identity;
  if (why !== undefined && 'timeoutMs' in why) return new Error(`${name} did not become ready within ${why.timeoutMs}ms`);
  const named = why === undefined ? undefined : identity.explainExit?.(why);
  if (named !== undefined) return new ShellStartRefused(named);
  const how = why?.signal ? `signal ${why.signal}` : `code ${why?.exitCode ?? '?'}`;
  return new Error(`${name} exited during startup (${how}); ${hint}`);
}
