import { EXEC_TAG_VAR } from './container-engine.js';
import { WRAPPER_TAG_SUFFIX } from './container-exec-wrapper.js';
import { CALL_HELPER_VERSION } from './native/call-helper.js';

// The small bash program a session's channel runs inside its container
// (docs/containers.md#one-channel-per-session), and the names it uses.

/** What the holder writes into the `ready` FIFO the host reads: it sees the host's channel directory. */
export const HOLDER_READY = 'ready';

/** Follows `ready` on its line when the holder runs the native call helper it was given. */
export const HOLDER_NATIVE = 'native';

/** A call's first status line once its subshell opened the call's files (the host may remove their names). */
export const HOLDER_OPENED = '+';

/** A call's only status line when its subshell could not open the call's files (the command never ran). */
export const HOLDER_UNSTARTED = '!';

/** `$0` of the holder, so it can be told apart in a process table. */
export const HOLDER_NAME = 'dsh-channel';

/**
 * Opens the channel directory's `ctl` FIFO (the host writes call ids into
 * it), then writes `ready` into its `ready` FIFO (the host reads it: the two
 * share the directory on one machine), and lets go of the exec's stdin and
 * stdout: from then on the holder does not depend on the engine's stream, so
 * an API server that goes away for a moment does not touch it. Reads one
 * call id per line from `ctl`, ending when the host closes it. For each, in
 * a subshell of its own: opens the call's status FIFO (`<id>.s`), reads the
 * call's request (`<id>.q`: shell path, workdir, command, then the call's
 * `NAME=value` variables, NUL-separated), opens its stdin FIFO (`<id>.i`,
 * which the host writes) and its stdout and stderr FIFOs (`<id>.o`,
 * `<id>.e`), writes `+` into the status (or `!` when it could not open them:
 * the command never ran), and runs the one-shot exec wrapper exactly as an
 * engine exec would — the variables bash itself sets (`PWD`, `OLDPWD`,
 * `SHLVL`, `_`) are dropped first, so the wrapper starts from the
 * environment an exec gets — then writes the wrapper's status into the
 * status FIFO. The command gets none of these descriptors.
 *
 * Each `ctl` line also names the call's exec tag (hex, the command's: the
 * wrapper's without its `w`), then `1` when the call may run through the
 * native call helper (`$3`, in the channel's directory: dsh-call.c), which
 * does the subshell's and the wrapper's work without starting a bash of its
 * own (docs/containers.md#the-native-call-helper). The holder uses it only
 * when `$3 --version` answered as expected at start, and says so after
 * `ready`; else every call goes the bash way. When `ctl` ends — the host
 * closed it, or the server holding it died — nobody is left to read what
 * the calls still running print or how they end: the holder kills their
 * subshells (or helpers), then stops and kills every process carrying one
 * of their tags (either form), as the wrapper kills leftovers, so no
 * command runs on unseen.
 */
export const CHANNEL_HOLDER =
  'D=$1 W=$2 H=$3; [[ -d $D && -x $D ]] || exit 3; ' +
  `[[ -n $H && $("$H" --version 2>/dev/null) == "${CALL_HELPER_VERSION}" ]] || H=; exec 3<"$D/ctl" || exit 3; ` +
  `printf '%s\\n' "${HOLDER_READY}\${H:+ ${HOLDER_NATIVE}}" >"$D/ready" || exit 3; exec 0</dev/null 1>/dev/null; ` +
  'R=(); while IFS=" " read -r -u 3 n t u; do [[ $n =~ ^[0-9a-f]{32}$ && $t =~ ^[0-9a-f]+$ ]] || continue; ' +
  // The helper gets the wrapper's tag: its fork doing the wrapper's work keeps it (a stop's last resort finds it
  // by it), its status writer blanks its own copy (so that stop does not take the status with it).
  `if [[ $u == 1 && -n $H ]]; then ${EXEC_TAG_VAR}=\${t}${WRAPPER_TAG_SUFFIX} "$H" "$D" "$n" 2>/dev/null & else { exec 3<&- 8>"$D/$n.s" || exit; ` +
  `{ mapfile -d '' -t a <"$D/$n.q" && exec 5<"$D/$n.i" 6>"$D/$n.o" 7>"$D/$n.e"; } || { printf '${HOLDER_UNSTARTED}\\n' >&8; exit; }; ` +
  `printf '${HOLDER_OPENED}\\n' >&8; ` +
  'unset PWD OLDPWD SHLVL _; ((${#a[@]} > 3)) && export "${a[@]:3}"; ' +
  'bash -c "$W" "${a[0]}" "${a[1]}" "${a[2]}" <&5 >&6 2>&7 5<&- 6<&- 7<&- 8>&-; ' +
  "printf '%d\\n' $? >&8; } 2>/dev/null & fi; R[$!]=$t; " +
  // Calls that ended leave the table now and then, so a long session's holder does not grow.
  '((${#R[@]} > 256)) && for q in "${!R[@]}"; do kill -0 "$q" 2>/dev/null || unset "R[$q]"; done; done; ' +
  // The host is gone: the calls still running are stopped, then killed, by their tags.
  // Their subshells first, so none reports a status for a command killed under it (a host still reading says "lost").
  'L=(); S=(); for q in "${!R[@]}"; do kill -0 "$q" 2>/dev/null && { L+=("${R[$q]}"); S+=("$q"); }; done; ((${#L[@]})) || exit 0; kill -9 "${S[@]}" 2>/dev/null; k=(); ' +
  'for d in /proc/[0-9]*; do mapfile -d "" -t v <"$d/environ" 2>/dev/null || continue; ' +
  `for x in "\${v[@]}"; do for t in "\${L[@]}"; do [[ $x == ${EXEC_TAG_VAR}=$t || $x == ${EXEC_TAG_VAR}=\${t}${WRAPPER_TAG_SUFFIX} ]] && { k+=("\${d#/proc/}"); continue 3; }; done; done; done; ` +
  '((${#k[@]})) && { kill -STOP "${k[@]}"; kill -9 "${k[@]}"; } 2>/dev/null; exit 0';
