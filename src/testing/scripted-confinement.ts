import type { SessionContext } from '../core/tool-contract.js';
import type { ConfinedCommand, Confinement, ConfinementRequest } from '../providers/policy/sandbox/confinement.js';
import type { SandboxMode } from '../core/sandbox-mode.js';
import type { ExecSpec } from '../providers/exec/shell/shell-executor.js';

/**
 * A `Confinement` for unit tests: it confines nothing (the argv stays as
 * given) but decides like the real one — the call's mode, else the default;
 * none for `danger-full-access` — so a scripted composition offers
 * escalation and records the mode each command was planned under.
 */
export class ScriptedConfinement implements Confinement {
  constructor(readonly defaultMode: SandboxMode) {}

  forSession(session: SessionContext | undefined, request: ConfinementRequest = {}): ConfinedCommand | undefined {
    const mode = request.mode ?? this.defaultMode;
    if (mode === 'danger-full-access') return undefined;
    const workspaceRoot = request.workspaceRoot ?? session?.cwd ?? '/';
    return { mode, workspaceRoot, key: `${mode}\0${workspaceRoot}`, wrapArgv: (argv) => [...argv], isDenial: () => false };
  }

  /** The mode a recorded spec was planned under: its confinement's, `danger-full-access` when planned unconfined. */
  static modeOf(spec: ExecSpec): SandboxMode | undefined {
    if (spec.confinement === null) return 'danger-full-access';
    return (spec.confinement as Partial<ConfinedCommand> | undefined)?.mode;
  }
}
