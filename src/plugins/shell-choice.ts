import { checkToolName } from '../core/renamed-tool.js';

/** Which shell tools a composition mounts. */
export type ShellChoice = 'oneshot' | 'persistent' | 'both';

export const SHELL_CHOICES: readonly ShellChoice[] = Object.freeze(['oneshot', 'persistent', 'both']);

/** Tool names of the two shells; defaults in `resolveShellTools`. */
export interface ShellToolNames {
  /** Default `bash`. */
  readonly oneshot?: string;
  /** Default `bash` when it is the only shell, `bash_persistent` beside the one-shot shell. */
  readonly persistent?: string;
}

/** The tool name each mounted shell gets (absent: not mounted). */
interface ShellTools {
  readonly oneshot?: string;
  readonly persistent?: string;
}

/** The persistent shell's name beside the one-shot `bash`. */
export const PERSISTENT_BESIDE_ONESHOT = 'bash_persistent';

/** Checks the choice and the names; throws `invalid shell …` / `invalid … tool name …`. */
export function resolveShellTools(shell: ShellChoice = 'oneshot', names: ShellToolNames = {}): ShellTools {
  if (!SHELL_CHOICES.includes(shell)) {
    throw new Error(`invalid shell ${JSON.stringify(shell)}: expected oneshot, persistent or both`);
  }
  const oneshot = checkToolName(names.oneshot ?? 'bash', 'one-shot shell');
  const persistent = checkToolName(names.persistent ?? (shell === 'both' ? PERSISTENT_BESIDE_ONESHOT : 'bash'), 'persistent shell');
  if (shell === 'oneshot') return { oneshot };
  if (shell === 'persistent') return { persistent };
  if (oneshot === persistent) throw new Error(`invalid shell tool names: both shells are named "${oneshot}"`);
  return { oneshot, persistent };
}
