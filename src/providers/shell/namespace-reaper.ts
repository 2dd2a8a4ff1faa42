import { randomBytes } from 'node:crypto';

/**
 * A confined command in a PID namespace of its own (bwrap `--unshare-pid`)
 * takes everything it started with it when it ends: the namespace's init
 * exits and the kernel kills the rest, before the host's reaper can count
 * them. So the command runs under this small POSIX sh inside the namespace
 * (sh, not bash: it starts in half the time): when the command ends, every
 * other process of the namespace (all of them the command's, except the init
 * at pid 1) is stopped, then killed and counted, and the count goes last on
 * stderr for `LeftoverTrailer`. The command keeps stdin and every
 * descriptor; its status is passed on as bwrap would (a signal as 128 + n).
 * The scan's own errors (a process gone between the glob and the read) go to
 * /dev/null, never into the command's stderr.
 */
const REAP_SCRIPT =
  't=$1; shift; "$@"; s=$?; k=; ' +
  'for d in /proc/[0-9]*; do q=${d#/proc/}; { [ "$q" = 1 ] || [ "$q" = "$$" ]; } && continue; ' +
  // Zombies are already dead.
  'read -r x <"$d/stat" || continue; x=${x##*) }; [ "${x%% *}" = Z ] && continue; k="$k $q"; done 2>/dev/null; n=0; ' +
  // All stopped first: none can start another process while the others are killed.
  'if [ -n "$k" ]; then kill -STOP $k 2>/dev/null; for q in $k; do kill -9 "$q" 2>/dev/null && n=$((n+1)); done; fi; ' +
  `[ "$n" -gt 0 ] && printf '\\037dsh-left:%s:%d\\037' "$t" "$n" >&2; exit $s`;

/** A fresh token naming this command's trailer. */
export function newReapToken(): string {
  return randomBytes(8).toString('hex');
}

/** `argv` run under the namespace reaper; use only inside a PID namespace of the command's own. */
export function reapingArgv(token: string, argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', REAP_SCRIPT, 'dsh-reap', token, ...argv];
}
