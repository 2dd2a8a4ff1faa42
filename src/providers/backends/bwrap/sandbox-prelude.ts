/** The descriptor the prelude opens the seccomp filter on, for bwrap's `--seccomp`. */
export const SECCOMP_FD = 9;

/**
 * Runs on the host, between the server and bwrap (in the command's process
 * group, as the same pid: it execs bwrap): joins the call's cgroups, sets
 * the rlimits, opens the seccomp filter on fd 9, then execs the rest. A
 * process cannot be put in a cgroup before it exists, so it joins itself:
 * everything bwrap starts is counted from the first fork. Any failure ends
 * it with status 125 before the command runs (fail closed). POSIX sh: dash
 * knows `ulimit -p` where bash says `-u`. `ignore-term` leaves SIGTERM
 * ignored across the exec, for bwrap and everything it starts until the
 * namespace reaper gives it back to the command.
 *
 * Two process attributes the sandbox cannot take back once the command
 * runs are fixed here first. RLIMIT_CORE is 0, soft and hard (raising a
 * hard limit needs a capability the command lacks): a crash leaves no core
 * file in the workspace, with the host's memory of the process in it. And
 * the audit login uid, where the server has none, becomes the server's uid:
 * an unset one may be set once by anyone, which would let a confined root
 * command log its acts under any user's name (a set one needs
 * CAP_AUDIT_CONTROL, which the sandbox drops).
 */
const prelude = (loginUid: number | undefined): string =>
  'ulimit -c 0 || exit 125; ' +
  (loginUid === undefined ? '' : loginUidStep(loginUid)) +
  'f=$1; shift; while [ "$1" != -- ]; do case $1 in ' +
  "ignore-term) trap '' TERM;; " +
  'nofile=*) ulimit -n "${1#*=}" || exit 125;; ' +
  'nproc=*) { ulimit -u "${1#*=}" || ulimit -p "${1#*=}"; } 2>/dev/null || exit 125;; ' +
  'data=*) ulimit -d "${1#*=}" || exit 125;; ' +
  '*) echo $$ 2>/dev/null >"$1" || { echo "dsh-tools: cannot join the sandbox cgroup $1" >&2; exit 125; };; ' +
  `esac; shift; done; shift; exec "$@" ${SECCOMP_FD}<"$f"`;

/** The loginuid file has no trailing newline, so `read` says EOF; the value is read all the same. */
const loginUidStep = (uid: number): string =>
  'u=; { read -r u </proc/self/loginuid; } 2>/dev/null; ' +
  `if [ "$u" = 4294967295 ]; then echo ${uid} 2>/dev/null >/proc/self/loginuid || ` +
  '{ echo "dsh-tools: cannot set the sandbox audit login uid" >&2; exit 125; }; fi; ';

interface PreludeOptions {
  /** The compiled seccomp filter (see seccomp-file.ts). */
  readonly filterFile: string;
  /** `cgroup.procs` files to join, in order. */
  readonly cgroupProcs: readonly string[];
  /** RLIMIT_NOFILE. */
  readonly openFiles: number;
  /** RLIMIT_NPROC, when set (the fallback without a pids cgroup; not enforced for uid 0). */
  readonly processes?: number;
  /** RLIMIT_DATA in bytes, when set (the fallback without a memory cgroup: per process, not per tree). */
  readonly dataBytes?: number;
  /** SIGTERM ignored by bwrap and its init (see `WrapOptions.termSparesWrapper`). */
  readonly ignoreTerm?: boolean;
}

/** `argv` (a bwrap command line that reads `--seccomp 9`) run under the prelude. */
export function preludeArgv(options: PreludeOptions, argv: readonly string[]): string[] {
  const steps = [`nofile=${options.openFiles}`];
  if (options.ignoreTerm === true) steps.push('ignore-term');
  if (options.processes !== undefined) steps.push(`nproc=${options.processes}`);
  if (options.dataBytes !== undefined) steps.push(`data=${Math.floor(options.dataBytes / 1024)}`);
  steps.push(...options.cgroupProcs);
  return ['/bin/sh', '-c', prelude(process.getuid?.()), 'dsh-sandbox', options.filterFile, ...steps, '--', ...argv];
}
