import { randomBytes } from 'node:crypto';

/**
 * The persistent shell's launcher, the TTY exec's process: enters the
 * working directory and says why it could not by its status (the runtime's
 * own chdir failure is an opaque "OCI runtime exec failed"), runs the
 * interactive bash as its child on the same terminal, and once that shell
 * ended writes a `signal:<n>` record keyed with `$2` (0: it exited, its code
 * is the exec's status) between `\x1e` bytes (`LAUNCHER_MARK`; the
 * markers use `\x1f`, so holding back a possible record never delays one). The exec status alone cannot tell `exit 137` from a
 * SIGKILL; the job table can (as in the exec wrapper). The shell can read the
 * key from the launcher's argv, but the launcher writes its record after
 * the shell ended, and the last record is the one that counts.
 *
 * Without job control an async command's stdin would be /dev/null, hence
 * the explicit `<&0`; the shell, still in the terminal's foreground group,
 * takes the terminal as any interactive bash does. The launcher's own
 * messages go to /dev/null, the shell's stderr to the terminal (fd 9).
 */
const LAUNCHER =
  'cd -- "$1" 2>/dev/null || { [ -e "$1" ] || exit 125; [ -d "$1" ] || exit 124; exit 123; }; ' +
  'exec 9>&2 2>/dev/null 7<> <(:); j() { local LC_ALL=C; jobs -l >&7; }; trap j CHLD; ' +
  '"$0" --noprofile --norc --noediting -i <&0 2>&9 7>&- 9>&- & p=$!; ' +
  '((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 501)) && f=-f || f=; ' +
  'until wait $f $p; s=$?; ! kill -0 $p; do [[ $f ]] || read -t 0.2 -u 8 _ 8<> <(:); done; trap - CHLD; d=; ' +
  'while read -t 0 -u 7; do read -r -u 7 a b e x || break; [[ $b == "$p" ]] && d=$e; done; n=0; ' +
  '((s > 128)) && [[ $d != Done && $d != Exit ]] && n=$((s - 128)); ' +
  `printf '\\036dsh-status:%s:signal:%d\\036' "$2" $n >&9; exit $s`;

/** The byte around the launcher's record. */
export const LAUNCHER_MARK = '\x1e';

/** The launcher's argv and the key its record carries. */
export interface ShellLaunch {
  readonly argv: string[];
  readonly key: string;
}

/** argv of the persistent shell in `cwd`, with a fresh key for its end record (read by `ExecStatusReader`). */
export function containerShellLaunch(shellPath: string, cwd: string): ShellLaunch {
  const key = randomBytes(16).toString('hex');
  return { argv: [shellPath, '-c', LAUNCHER, shellPath, cwd, key], key };
}
