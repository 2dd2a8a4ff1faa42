// The sandbox vocabulary: only the planner, the sandbox and the approval texts speak it; executors and terminals never do.

/** Sandbox modes, narrowest first. */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

/** Every sandbox mode, narrowest first. */
export const SANDBOX_MODES: readonly SandboxMode[] = Object.freeze(['read-only', 'workspace-write', 'danger-full-access']);

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === 'string' && (SANDBOX_MODES as readonly string[]).includes(value);
}
