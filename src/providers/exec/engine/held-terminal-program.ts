import { EXEC_TAG_VAR } from './container-engine.js';

// The small bash program one engine exec runs to start a held terminal in a
// session's container (docs/containers.md#the-held-terminal), and the names it uses.

/** `$0` of the starter and of the process that waits on `script`, so they can be told apart in a process table. */
export const HELD_NAME = 'dsh-held';

/** The starter's status when the container has no `script`: use a TTY exec there from now on. */
export const HELD_NO_SCRIPT = 90;

/** The starter's status when it cannot reach the terminal's FIFOs (another machine's directory, a user who may not enter it). */
const HELD_UNREACHABLE = 91;

/** The FIFOs of a held terminal, in its directory: input the host writes, output it reads, the status of the terminal. */
export const HELD_FIFOS = Object.freeze({ input: 'in', output: 'out', status: 'st' });

/** The first status line: the process waiting on `script` holds the status FIFO (the host may drop its own hold). */
export const HELD_OPENED = '+';

/** Before the launcher's pid in the status FIFO: a `script` that fails at once (BusyBox's knows no `-e`) writes a bare status there instead. */
export const HELD_PID = 'pid:';

/**
 * Argv: `$1` the terminal's directory, `$2` the exec tag, `$3` `$4` the
 * terminal's columns and rows, then the launcher's argv. Checks for `script`
 * and the FIFOs, then starts, detached from this exec (which ends at once),
 * a process without the tag that opens the status FIFO, writes `+` into it,
 * and runs `script -qfec <command> /dev/null` with the tag, its input and
 * output the terminal's FIFOs (each opened read-write, so neither ever ends
 * or breaks for want of the other side: the terminal does not depend on
 * whoever reads it), then writes script's status (the launcher's, 128 + n
 * for a signal) into the status FIFO. Untagged, that process outlives a kill
 * by the tag and reports it. `script` runs the command with `$SHELL -c`, so
 * `SHELL` is bash for it; the command sets the terminal's size, writes its
 * pid (which the launcher keeps across the `exec`) into the status FIFO after `pid:`,
 * puts `SHELL` back as the exec's environment had it (bash sets it unexported when missing), drops what bash itself set (`PWD`,
 * `OLDPWD`, `SHLVL`), and execs the launcher: the launcher starts from the
 * environment a TTY exec would have given it.
 */
export const HELD_STARTER =
  `command -v script >/dev/null 2>&1 || exit ${HELD_NO_SCRIPT}; ` +
  `D=$1 T=$2 c=$3 r=$4; shift 4; [[ -p $D/${HELD_FIFOS.input} && -p $D/${HELD_FIFOS.output} && -p $D/${HELD_FIFOS.status} ]] || exit ${HELD_UNREACHABLE}; ` +
  `if [[ $(declare -p SHELL 2>/dev/null) == 'declare -x'* ]]; then printf -v e 'export SHELL=%q' "$SHELL"; else e='unset SHELL'; fi; ` +
  `printf -v a '%q ' "$@"; printf -v s '%q' "$D/${HELD_FIFOS.status}"; ` +
  `C="stty cols $c rows $r 2>/dev/null; printf '${HELD_PID}%d\\n' \\$\\$ >$s; unset PWD OLDPWD SHLVL; $e; exec $a"; ` +
  `( exec 8>"$D/${HELD_FIFOS.status}" || exit; printf '${HELD_OPENED}\\n' >&8; ` +
  `SHELL=$BASH ${EXEC_TAG_VAR}=$T script -qfec "$C" /dev/null 0<>"$D/${HELD_FIFOS.input}" 1<>"$D/${HELD_FIFOS.output}" 2>&1 8>&-; ` +
  `printf '%d\\n' $? >&8 ) </dev/null >/dev/null 2>&1 & exit 0`;
