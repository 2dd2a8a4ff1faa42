import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { CommandConfinement, ResourceLimitHit } from '../shell/shell-executor.js';

/** Options for opening a PTY; backends read what they understand. */
export interface TerminalOpenOptions {
  readonly cwd: string;
  /** Managed `DSH_*` overlay for the owning session. */
  readonly dshEnv?: Readonly<Record<string, string>>;
  readonly cols?: number;
  readonly rows?: number;
  /**
   * Characters of one send's output kept in memory (the beginning); later
   * output is only counted in `SendResult.droppedChars`. Backend default when absent.
   */
  readonly scrollbackChars?: number;
  /**
   * Rewrites the argv of the shell process (e.g. to run it under bwrap). The
   * wrapper must keep the shell on the PTY as its controlling terminal.
   */
  readonly wrapArgv?: (argv: string[]) => string[];
  /** The owning session (the service sets it): backends keep per-session state by it (a container). */
  readonly session?: SessionContext;
  /**
   * How the shell is confined for its whole life, as its call's plan decided:
   * `null` unconfined; absent, the policy's fallback plan (`FallbackPlanner`,
   * when the composition has one).
   */
  readonly confinement?: CommandConfinement | null;
  /**
   * A new shell even where the backend keeps one for the session beyond this
   * process (a shared session's, docs/shared-sessions.md#the-persistent-shell):
   * a `restart`. Other backends always open a new one.
   */
  readonly fresh?: boolean;
}

/** How a send ended. */
type SendEnd =
  | { readonly kind: 'completed'; readonly exitCode: number }
  | { readonly kind: 'shell-exited'; readonly exitCode: number | null; readonly signal: string | null }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'waiting-for-input' }
  /** The shell returned to its prompt without running the frame around the command (its state blocks it); the command may not have run. */
  | { readonly kind: 'framing-lost' };

export interface SendResult {
  readonly end: SendEnd;
  /** Output between the markers: ANSI/OSC stripped, CRLF normalized. */
  readonly output: string;
  /**
   * True when the terminal's bounded scrollback already dropped the beginning,
   * so `output` is a tail. (The bash backend keeps the beginning and counts
   * the rest in `droppedChars` instead, so it never sets this.)
   */
  readonly lostPrefix: boolean;
  /** Characters produced after the retained output (not kept in memory); 0 or absent when nothing was dropped. */
  readonly droppedChars?: number;
  /** Progress updates (bare-`\r` redraws) dropped from `output`; 0 or absent when none. */
  readonly collapsedUpdates?: number;
  /**
   * Present when this send continued a command that was waiting for input.
   * `inputDelivered: false` means that command had already finished, so the
   * text was neither delivered nor run; `output` and `end` are its remainder.
   */
  readonly continuation?: { readonly inputDelivered: boolean };
  /** An end marker of this call came while the command was still running (forged by it); `output` runs to the real end. */
  readonly forgedEnd?: boolean;
  /** Set by a confined shell when the command failed with the confinement's denial signature. */
  readonly denied?: boolean;
  /** Set by a confined shell when this call ran into the shell's resource limits (its cgroup counters rose). */
  readonly limitsReached?: readonly ResourceLimitHit[];
}

export interface SendOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /**
   * Variables to export in the shell before the command runs (an empty value
   * unsets); used to refresh the managed `DSH_*` overlay. Ignored when the
   * send continues a command waiting for input.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Called (throttled) as the command prints: characters so far and the last complete line. */
  readonly onProgress?: (progress: { readonly bytes: number; readonly lastLine?: string }) => void;
}

/** One live PTY process kept by a backend. */
export interface PtySession {
  readonly pid: number;
  readonly alive: boolean;
  /**
   * Runs one command to completion (or timeout / abort / shell death / stdin
   * wait). On timeout, abort or a lost frame the session closes itself
   * (process tree killed) before the send settles. While an earlier command waits for
   * input, `command` is delivered to it as one line of input instead (the
   * exact texts `^C` and `^D` send interrupt and end-of-file), and the send
   * settles when that command does. One send at a time: a second while one
   * runs rejects with `a command is already running on this PTY`.
   */
  send(command: string, options: SendOptions): Promise<SendResult>;
  /** Kills the process tree and resolves when it is gone. */
  close(): Promise<void>;
  /**
   * Lets go of a shell that outlives this process (a shared session's,
   * docs/shared-sessions.md#the-persistent-shell) without ending it: what a
   * session's or the service's disposal does. Absent: `close`.
   */
  letGo?(): Promise<void>;
}

/** Opens PTY sessions of one type (multi-bound; keyed by `type`). */
export interface TerminalBackend {
  readonly type: string;
  open(options: TerminalOpenOptions): Promise<PtySession>;
}

export const TerminalBackend: ServiceIdentifier<TerminalBackend> = Symbol.for('dsh.TerminalBackend');

/**
 * Owner-scoped PTY sessions with opaque ids. Every operation is fenced to
 * the owning session; at most one send runs per PTY: a send while another
 * runs rejects with `a command is already running on this PTY` (callers
 * order their own sends); disposal closes every PTY and awaits its process
 * tree.
 */
export interface TerminalService {
  /** Throws `no PTY backend registered for "<type>"` for an unknown type. */
  open(owner: SessionContext, type: string, options: TerminalOpenOptions): Promise<string>;
  /** Throws for an unknown or foreign id. */
  send(owner: SessionContext, id: string, command: string, options: SendOptions): Promise<SendResult>;
  isAlive(owner: SessionContext, id: string): boolean;
  close(owner: SessionContext, id: string): Promise<void>;
  disposeOwner(ownerId: string): Promise<void>;
  dispose(): Promise<void>;
}

export const TerminalService: ServiceIdentifier<TerminalService> = Symbol.for('dsh.TerminalService');
