import type { CommandConfinement, CommandLimits, ResourceLimitHit } from '../../exec/process/command-confinement.js';
import type { PrestartedShell } from '../../exec/shell/prestarted-shell.js';
import type { ShellProcess } from '../../exec/shell/shell-process.js';

// What a confined command's result reports about its confinement: a denial, and (below) the limits it reached.

/** Whether a confined command failed with its confinement's denial signature. */
export function denialOf(confined: CommandConfinement, exit: { exitCode: number | null; signal: string | null }, stderr: string): boolean {
  const failed = exit.exitCode !== 0 || exit.signal !== null;
  return failed && confined.isDenial(stderr);
}

/**
 * The resource-limit groups of a local executor's confined commands: one per
 * spawn; a pre-started shell's group is left for collection unless a call
 * takes the shell, and then it is that call's.
 */
export class CallLimitGroups {
  private readonly prestarted = new WeakMap<PrestartedShell, CommandLimits>();

  remember(shell: PrestartedShell | undefined, group: CommandLimits | undefined): void {
    if (shell !== undefined && group !== undefined) this.prestarted.set(shell, group);
  }

  /** The group of the shell that became the command: the pre-started one's when it was handed over (the fresh one is then released). */
  ofCommand(prestarted: PrestartedShell | undefined, fresh: CommandLimits | undefined): CommandLimits | undefined {
    if (prestarted?.handedOver !== true) return fresh;
    void fresh?.release();
    const group = this.prestarted.get(prestarted);
    group?.own();
    return group;
  }
}

/**
 * The group of one spawn, made only when the spawn wraps its argv (a spawn
 * path that never wraps makes none). A pre-started shell's is `unowned`:
 * nobody reads it unless a call takes the shell.
 */
export class LazyLimitGroup {
  private group: CommandLimits | undefined;
  private tried = false;

  constructor(
    private readonly confined: CommandConfinement | undefined,
    private readonly unowned = false,
  ) {}

  /** The group, made on first use; undefined without a confinement or cgroups. */
  make(): CommandLimits | undefined {
    if (!this.tried) {
      this.tried = true;
      this.group = this.confined?.newLimitGroup?.();
      if (this.unowned) this.group?.releaseWhenEmpty();
    }
    return this.group;
  }

  get made(): CommandLimits | undefined {
    return this.group;
  }
}

/** Removes a group once its command has ended (nobody reads its counters: a background or continued command). */
export function releaseOnExit(shell: ShellProcess, group: CommandLimits | undefined): void {
  if (group === undefined) return;
  const release = (): void => void group.release();
  shell.exited.then(release, release);
}

/** The limits a finished command reached; its group is released. */
export function settleLimits(group: CommandLimits | undefined): ResourceLimitHit[] {
  if (group === undefined) return [];
  const reached = group.takeReached();
  void group.release();
  return reached;
}
