// How a command is confined, as the process kernel applies it: no modes, no
// policy. What to confine and how widely is decided by the policy: the call
// planner, or, for a request nobody planned, its fallback plan
// (src/providers/policy/planner/fallback-planner.ts).

/** A resource limit a confined command reached: which one, and its value as configured (`2048`, `4g`). */
export interface ResourceLimitHit {
  readonly kind: 'processes' | 'memory';
  readonly limit: string;
}

/** The resource-limit group (cgroups) of one spawn: joined before the command runs, read and released when it ends. */
export interface CommandLimits {
  /** `cgroup.procs` files the command's first process writes its pid into. */
  readonly procsFiles: readonly string[];
  /** Which limits the group enforces (the others fall back to rlimits). */
  readonly covers: { readonly processes: boolean; readonly memory: boolean };
  /** Which limits the group ran into since the previous take (processes first). */
  takeReached(): ResourceLimitHit[];
  /** Kills what is left in it and removes it. */
  release(): Promise<void>;
  /** For a group nobody will read (a pre-started shell): removed later once its processes are gone. */
  releaseWhenEmpty(): void;
  /** Takes a group left to `releaseWhenEmpty` back (its shell became a call's command). */
  own(): void;
}

export interface WrapOptions {
  /** Host paths the command may read (bound read-only at the same path), e.g. the session's spill directory. */
  readonly readable?: readonly string[];
  /** The directory the command starts in; it must exist inside the confinement (no silent fallback to `$HOME`). */
  readonly cwd?: string;
  /** The spawn's resource-limit group (from `newLimitGroup`); without one, only rlimits bound the command. */
  readonly limits?: CommandLimits;
  /**
   * The confinement's own processes (host-side prelude, bwrap, its init)
   * ignore SIGTERM, so a group stop ends only what `argv` runs and they live
   * to pass its status on. `argv` must give SIGTERM back to its command (the
   * namespace reaper does). Only for a confinement with `pidNamespace`.
   */
  readonly termSparesWrapper?: boolean;
}

/** How one command (or one persistent shell) runs confined: applied by executors and terminal backends as given. */
export interface CommandConfinement {
  /** Two confinements with the same key confine the same way; a shell started under another key must be replaced. */
  readonly key: string;
  /** The argv that runs `argv` confined, in the caller's process group and on the caller's terminal. */
  wrapArgv(argv: readonly string[], options?: WrapOptions): string[];
  /** True when a failed command's output carries this confinement's denial signature. */
  isDenial(output: string): boolean;
  /** A fresh limit group for one spawn, undefined when the machine offers none; the caller owns and releases it. */
  newLimitGroup?(): CommandLimits | undefined;
  /** True when the command runs in a PID namespace of its own: it sees only its own processes, and they end with it. */
  readonly pidNamespace?: boolean;
}
