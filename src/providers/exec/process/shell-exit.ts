/** Why the executor itself stopped a process group. */
export type StopReason = 'timeout' | 'abort' | 'kill' | 'dispose';

/** How the group leader ended, and whether the executor made it end. */
export interface ShellExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Set only when the executor signalled the group while the leader was still running. */
  readonly reason: StopReason | undefined;
}
