// The small bash program a session's channel runs inside its container
// (docs/containers.md#one-channel-per-session), and the names it uses.

/** What the holder writes into the `ready` FIFO the host reads: it sees the host's channel directory. */
export const HOLDER_READY = 'ready';

/** A status line's word once the holder opened a call's files (the host may remove their names). */
export const HOLDER_OPENED = '+';

/** A status line's word for a call the holder could not start (its files were not there to open). */
export const HOLDER_UNSTARTED = '!';

/** `$0` of the holder, so it can be told apart in a process table. */
export const HOLDER_NAME = 'dsh-channel';

/**
 * First writes `ready` into the FIFO `ready` of the channel directory (the
 * host reads it: the two share the directory on one machine). Then reads
 * one call id per line on stdin. For each, in a subshell of its own:
 * reads the call's request (`<id>.q`: shell path, workdir, command, then the
 * call's `NAME=value` variables, NUL-separated), opens its stdin file
 * (`<id>.i`) and the three FIFOs the host is already reading (`<id>.o`,
 * `<id>.e`, `<id>.s`), and runs the one-shot exec wrapper exactly as an engine exec
 * would: the variables bash itself sets (`PWD`, `OLDPWD`, `SHLVL`, `_`) are
 * dropped first, so the wrapper starts from the environment an exec gets.
 * The subshell writes `<id> +` on the holder's stdout once the files are
 * open (one short write: lines of concurrent calls never interleave), or
 * `<id> !` when it could not open them — the command never ran — then lets
 * go of the holder's stdin and stdout, so a call that started does not
 * depend on the holder's stream any more, and writes the wrapper's status
 * into the call's status FIFO (`<id>.s`). The command gets none of these
 * descriptors. Ends when its stdin closes.
 */
export const CHANNEL_HOLDER =
  'D=$1 W=$2; [[ -d $D && -x $D ]] || exit 3; ' +
  `printf '%s\\n' ${HOLDER_READY} >"$D/ready" || exit 3; ` +
  'while IFS= read -r n; do [[ $n =~ ^[0-9a-f]{32}$ ]] || continue; { ' +
  `mapfile -d '' -t a <"$D/$n.q" && exec 5<"$D/$n.i" 6>"$D/$n.o" 7>"$D/$n.e" 8>"$D/$n.s" || { printf '%s ${HOLDER_UNSTARTED}\\n' "$n"; exit; }; ` +
  `printf '%s ${HOLDER_OPENED}\\n' "$n"; exec 1>&- 0<&-; ` +
  'unset PWD OLDPWD SHLVL _; ((${#a[@]} > 3)) && export "${a[@]:3}"; ' +
  'bash -c "$W" "${a[0]}" "${a[1]}" "${a[2]}" <&5 >&6 2>&7 5<&- 6<&- 7<&- 8>&-; ' +
  "printf '%d\\n' $? >&8; } 2>/dev/null & done";
