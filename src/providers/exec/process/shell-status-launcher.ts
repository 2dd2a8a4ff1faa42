import { randomBytes } from 'node:crypto';
import { JOB_END_WAIT } from './job-end-wait.js';

/**
 * The persistent shell's launcher, for a shell whose own end the host cannot
 * see as it was (a container's TTY exec, bwrap, which both pass a death by
 * signal on as 128 + n): it reads its key from the first line of its
 * terminal (the host writes it before anything else: never in an argv or an
 * environ, only in an unexported variable of the launcher, which the shell
 * never becomes), enters the working directory and says why it could not by
 * its status (a container runtime's own chdir failure is opaque), runs the
 * interactive bash as its child on the same terminal, and once that shell
 * ended writes a `signal:<n>` record keyed with the key (0: it exited, its
 * code is the launcher's status) between `\x1e` bytes (`LAUNCHER_MARK`; the
 * markers use `\x1f`, so holding back a possible record never delays one).
 * The status alone cannot tell `exit 137` from a SIGKILL; bash's own end
 * notice can (`JOB_END_WAIT`, as in the container exec wrapper).
 *
 * Without job control an async command's stdin would be /dev/null and it
 * would ignore SIGINT and SIGQUIT (so a ^C would not reach what the shell
 * runs), hence the explicit `<&0` and the `trap -` before the `exec`; the
 * shell, still in the terminal's foreground group, takes the terminal as any
 * interactive bash does. The launcher's own messages go to /dev/null, the
 * shell's stderr to the terminal (fd 9).
 */
const LAUNCHER =
  'IFS= read -r K && [[ $K == +([0-9a-f]) ]] || exit 122; ' +
  'cd -- "$1" 2>/dev/null || { [ -e "$1" ] || exit 125; [ -d "$1" ] || exit 124; exit 123; }; ' +
  'exec 9>&2 2>/dev/null 7<> <(:); ' +
  '{ trap - INT QUIT; exec "$0" --noprofile --norc --noediting -i 2>&9 7>&- 9>&-; } <&0 & p=$!; ' +
  // Without job control bash prints no notice for an exit, nor for a death by SIGINT or SIGPIPE (which an
  // interactive shell ignores, or meets only once nobody reads its terminal): no notice is an exit.
  JOB_END_WAIT + 'n=0; ' +
  '((s > 128)) && [[ $d && $d != Done && $d != Exit ]] && n=$((s - 128)); ' +
  `printf '\\036dsh-status:%s:signal:%d\\036' "$K" $n >&9; exit $s`;

/** The byte around the launcher's record. */
export const LAUNCHER_MARK = '\x1e';

/** The launcher's argv, the key its record carries and the line that hands it the key. */
export interface ShellLaunch {
  readonly argv: string[];
  readonly key: string;
  /** Written on the terminal before anything else. */
  readonly keyLine: string;
}

/** argv of the persistent shell in `cwd`, with a fresh key for its end record (read by `ExecStatusReader`). */
export function shellStatusLaunch(shellPath: string, cwd: string): ShellLaunch {
  const key = randomBytes(16).toString('hex');
  return { argv: [shellPath, '-c', LAUNCHER, shellPath, cwd], key, keyLine: `${key}\n` };
}
