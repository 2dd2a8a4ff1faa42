import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../../core/tool-contract.js';
import type { SandboxMode } from '../../../core/sandbox-mode.js';

export interface ResolvedSandbox {
  readonly mode: SandboxMode;
  readonly workspaceRoot: string;
  /** The session's private temp directory, mounted at `/tmp` (a fresh empty one per command when absent). */
  readonly privateTmp?: string;
  /** Host paths the command may read although they are hidden otherwise (bound read-only at the same path). */
  readonly readable?: readonly string[];
  /** Where the command starts; absent: the caller's cwd when it exists inside, else bwrap's fallback. */
  readonly cwd?: string;
  /** The call's cgroups (see cgroup-limiter.ts): joined before the command runs; the limits they do not cover fall back to rlimits. */
  readonly cgroup?: { readonly procsFiles: readonly string[]; readonly covers: { readonly processes: boolean; readonly memory: boolean } };
  /** bwrap and the prelude ignore SIGTERM (see `WrapOptions.termSparesWrapper`). */
  readonly termSparesWrapper?: boolean;
}

/**
 * Decides the sandbox mode of a call: an approved one-shot mode beats the
 * session override, which beats the deployment default (`read-only`).
 */
export interface SandboxPolicy {
  /** The mode and the workspace root (symlinks resolved) a call of `session` runs under; `mode`: an approved one-shot mode. */
  decide(input: { readonly session?: SessionContext; readonly mode?: SandboxMode }): ResolvedSandbox;
  setMode(session: SessionContext, mode: SandboxMode): void;
}

export const SandboxPolicy: ServiceIdentifier<SandboxPolicy> = Symbol.for('dsh.SandboxPolicy');

/** Wraps a command line so it runs confined (bwrap on Linux). */
export interface SandboxProvider {
  readonly name: string;
  /** Null when usable; otherwise why not (missing binary, no user namespaces). */
  unavailableReason(): string | null;
  /** argv that runs `argv` confined under `sandbox`. */
  wrap(argv: readonly string[], sandbox: ResolvedSandbox): string[];
  /** True when a failed command's stderr carries this backend's denial signature (a refused write or mount). */
  isDenial(stderr: string): boolean;
  /** True when every wrapped command runs in a PID namespace of its own: it sees only its own processes, and they end with it. */
  readonly pidNamespace?: boolean;
}

export const SandboxProvider: ServiceIdentifier<SandboxProvider> = Symbol.for('dsh.SandboxProvider');

/** `code` of the error a confined spawn fails with when confinement is impossible. */
export const SANDBOX_UNAVAILABLE = 'SANDBOX_UNAVAILABLE';

/** Thrown instead of running a command unconfined (fail closed). */
export class SandboxUnavailableError extends Error {
  readonly code = SANDBOX_UNAVAILABLE;

  constructor(
    readonly mode: SandboxMode,
    readonly reason: string,
  ) {
    super(`sandbox unavailable for ${mode} mode: ${reason}, or run with --sandbox danger-full-access`);
    this.name = 'SandboxUnavailableError';
  }
}
