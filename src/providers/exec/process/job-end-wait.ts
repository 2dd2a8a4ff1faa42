/**
 * Bash that waits for the job `$p` of a shell under `set -m` to end and
 * says how: `s` is its status as `wait` gives it (128+n both for `exit
 * 128+n` and for a death by signal n) and `d` the job table's word for the
 * end (`Done`, `Exit`, `Terminated`, `Killed`, …; empty if bash printed
 * none), which tells the two apart. Needs fd 7 open read-write on a pipe
 * nobody else writes (`exec 7<> <(:)`).
 *
 * Why not a CHLD trap copying `jobs -l` with `wait -f`: bash 5.2 can spin
 * for ever in `wait_for` ("No record of process") or abort when a trapped
 * SIGCHLD meets `wait`. Here nothing is trapped: under job control bash
 * itself prints the job's end notice while `wait` returns (in the C locale
 * its words are fixed), and `wait`'s stderr goes to the pipe. A stopped job
 * ends a plain `wait` too (notice `Stopped`): wait again, paced, while it is
 * stopped and still there. Without job control bash prints a notice only
 * for a death by a signal other than SIGINT and SIGPIPE.
 *
 * The notice reads `[1]+  Done  <job text>` or `<name>: line 1: <pid>
 * Killed  <job text>`; the job text is the caller's own source, not the
 * command's.
 */
export const JOB_END_WAIT =
  "W() { local LC_ALL=C; wait $p 2>&7; }; A='^\\[[0-9]+\\][-+ ]? +([A-Za-z]+)'; B=\"(^| )$p +([A-Za-z]+)\"; d=; " +
  'until W; s=$?; while read -t 0 -u 7; do IFS= read -r -u 7 l || break; ' +
  '{ [[ $l =~ $A ]] || [[ $l =~ $B ]]; } && d=${BASH_REMATCH[-1]}; done; ' +
  '[[ $d != Stopped ]] || ! kill -0 $p 2>/dev/null; do read -t 0.2 -u 7 _; done; ' +
  '[[ $d == Stopped ]] && d=; ';
