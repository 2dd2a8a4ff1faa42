import { randomBytes } from 'node:crypto';
import { exceedsArgLimit } from '../process/long-command.js';
import { JOB_END_WAIT } from '../process/job-end-wait.js';
import { EXEC_TAG_VAR } from './container-engine.js';

// The bash wrapper every one-shot container exec runs, and the header the
// host writes on the exec's stdin for it. Why it is built this way:
// docs/security/persistent-and-exec.md.

/** The wrapper's status when it could not enter the workdir (the command never ran). */
export const WORKDIR_STATUS = 125;

/** Appended to the tag the exec starts with: the wrapper's own tag, which stopping the command does not reach. */
export const WRAPPER_TAG_SUFFIX = 'w';


/**
 * Reads `<key> <command bytes> <stdin bytes>\n` from the exec's stdin, then
 * the command itself when it is too long for argv (bash `read -N` in the C
 * locale counts bytes and reads no further than asked), so the rest of the
 * stream is exactly the command's stdin. The key stays in an unexported
 * variable: never in any process's environ or cmdline, nor on a descriptor
 * the command gets. Enters the workdir (the runtime's own chdir failure is an
 * opaque status 126) and says why it could not in a keyed record; runs the
 * command in a fresh bash (no copy of the wrapper's memory) in its own
 * process group, with stdin /dev/null or exactly its stdin bytes and the
 * long command on fd 3; then kills what it left behind — its group and every
 * process carrying this exec's tag or the wrapper's own (`setsid` escapes;
 * the wrapper's forks are told apart by pid), counted — and writes
 * the count last, keyed. Its own stderr is /dev/null (job reports); the
 * command's goes to the exec's stderr through fd 4.
 *
 * The exec starts with the tag plus `w` (`WRAPPER_TAG_SUFFIX`) and the
 * wrapper exports the bare tag to the command: stopping the command by its
 * tag leaves the wrapper alive to report how it ended. `wait` gives 128+n
 * both for `exit 128+n` and for a death by signal n; the job table tells
 * them apart (`Exit 143` / `Terminated`): the wrapper reads bash's own end
 * notice (`JOB_END_WAIT`) and writes a keyed `signal:<n>` record when the
 * command was killed by a signal.
 */
export const EXEC_WRAPPER =
  'IFS=" " read -r K c i || exit 124; C=$2; ((c)) && { LC_ALL=C IFS= read -r -N "$c" C || exit 124; }; ' +
  'cd -- "$1" 2>/dev/null || { if [[ ! -e $1 ]]; then w=missing; elif [[ ! -d $1 ]]; then w=notdir; else w=denied; fi; ' +
  `printf '\\037dsh-status:%s:workdir:%s\\037' "$K" "$w" >&2; exit ${WORKDIR_STATUS}; }; ` +
  `T=\${${EXEC_TAG_VAR}%${WRAPPER_TAG_SUFFIX}}; export ${EXEC_TAG_VAR}=$T; ` +
  'set -m; exec 4>&2 2>/dev/null; h=(); ' +
  // Helpers drop the tag: they are the wrapper's, never counted as the command's leftovers.
  `if ((i)); then exec 5< <(${EXEC_TAG_VAR}= exec head -c "$i"); h+=($!); else exec 5</dev/null; fi; ` +
  `if ((c)); then exec 6< <(printf %s "$C"); h+=($!); r='eval "$(cat <&3)" 3<&-'; else exec 6</dev/null; r=$C; fi; unset C; ` +
  // The job-table pipe: the command's end notice comes through it (JOB_END_WAIT).
  'exec 7<> <(:); o=($!); ' +
  '"$0" -c "$r" <&5 3<&6 2>&4 4>&- 5<&- 6<&- 7>&- & p=$!; exec 5<&- 6<&-; ' +
  JOB_END_WAIT +
  `((s > 128)) && [[ $d != Done && $d != Exit ]] && printf '\\037dsh-status:%s:signal:%d\\037' "$K" $((s - 128)) >&4; ` +
  '((${#h[@]})) && kill -9 "${h[@]}"; k=(); ' +
  // Only processes forked since the wrapper started can be the command's (stat field 22, the start time):
  // the others are passed over before their environ is read, which is most of the cost of a busy sandbox.
  // A stat line split into words by `read -a` (a name with blanks takes several): the fields from the state on are
  // the last C words, C counted on the wrapper's own line (its name is one word). Cutting at the last `) ` was
  // quadratic in bash, and the scan's main cost with a few hundred processes.
  'read -r -a a </proc/$$/stat; C=$((${#a[@]} - 2)); m=${a[21]}; U=$\'\\x01\'; ' +
  // g <pid>: 0 when its environ carries either tag, 1 when not, 2 unreadable, 3 empty (mid-execve, or `env -i`).
  // The entries joined by \x01 and matched at once (a value holding \x01 and the tag was put there by one who knows it).
  'g() { mapfile -d "" -t v <"/proc/$1/environ" || return 2; ((${#v[@]})) || return 3; printf -v x "$U%s" "${v[@]}"; x+=$U; ' +
  `[[ $x == *"$U${EXEC_TAG_VAR}=$T$U"* || $x == *"$U${EXEC_TAG_VAR}=\${T}${WRAPPER_TAG_SUFFIX}$U"* ]]; }; e=(); ` +
  // The helpers (and the job-table pipe's `:`) are skipped by pid: one not yet gone may still be a fork with the wrapper's environ (its tag).
  'for d in /proc/[0-9]*; do q=${d#/proc/}; [[ $q == "$$" ]] && continue; for x in "${h[@]}" "${o[@]}"; do [[ $q == "$x" ]] && continue 2; done; ' +
  // Group members count by their stat (a process mid-execve shows no environ yet); zombies are already dead.
  // A child of the wrapper is never the command's (the command was waited for, and an orphan goes to the
  // container's init, not to the wrapper): it is one of the wrapper's own forks (a helper's subshell that
  // has not exec'd yet still shows the wrapper's tag), named by pid above or not.
  // A line that does not parse (a name holding a newline) skips these checks: its environ still decides.
  'read -r -a a <"$d/stat" || continue; b=$((${#a[@]} - C)); if ((b >= 2)); then ((a[b + 19] < m)) && continue; ' +
  '[[ ${a[b]} == Z || ${a[b + 1]} == "$$" ]] && continue; [[ ${a[b + 2]} == "$p" ]] && { k+=("$q"); continue; }; fi; ' +
  // Either tag: the wrapper's own forks were skipped above by pid (named, or its children), so a process
  // showing the wrapper's tag (`w`) here is the command's, which set it to hide from this scan.
  'g "$q"; case $? in 0) k+=("$q") ;; 3) e+=("$q") ;; esac; done; ' +
  // A process caught mid-execve (a setsid daemon the command just started) shows an empty environ for a moment: asked again.
  'for q in "${e[@]}"; do for r in 1 2 3 4 5; do read -t 0.01 -u 7 _; g "$q"; z=$?; ((z == 3)) || break; done; ((z == 0)) && k+=("$q"); done; exec 7<&-; n=0; ' +
  // Stopped first, as in killTagged: none of them can start another process while the others are killed.
  '((${#k[@]})) && { kill -STOP "${k[@]}"; for q in "${k[@]}"; do kill -9 "$q" && n=$((n+1)); done; }; kill -9 -- -$p; ' +
  `printf '\\037dsh-status:%s:left:%d\\037' "$K" $n >&4; exit $s`;

/** What the host writes on the exec's stdin and the argv that goes with it. */
export interface WrapperInput {
  readonly key: string;
  readonly argv: string[];
  /** Header, long command (if any), then the command's stdin (written as UTF-8, as the byte counts assume). */
  readonly stdin: string;
}

/** A fresh key per exec; the command as argv when it fits, else after the header. */
export function wrapperInput(shellPath: string, command: string, workdir: string, stdin: string | undefined): WrapperInput {
  const key = randomBytes(16).toString('hex');
  const long = exceedsArgLimit(command);
  const body = long ? command : '';
  const input = stdin ?? '';
  const header = `${key} ${Buffer.byteLength(body, 'utf8')} ${Buffer.byteLength(input, 'utf8')}\n`;
  return { key, argv: ['bash', '-c', EXEC_WRAPPER, shellPath, workdir, long ? '' : command], stdin: header + body + input };
}
