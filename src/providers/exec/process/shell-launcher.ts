/**
 * A pre-started one-shot shell is a bash "launcher" that blocks on its
 * private pipe (fd 3) until a call hands it a record, then runs the call's
 * command itself with `eval`: no second exec on the critical path, and the
 * command runs in the very process (pid and process group) the executor
 * spawned and tracks. The command reaches bash only as data (`read -N` into
 * `BASH_EXECUTION_STRING`, as a plain `bash -c` has it), never as shell code
 * of the launcher. What still differs from a fresh `bash -c` is listed in
 * docs/performance.md and tested in test/providers/backends/local/prestart-differences.test.ts.
 *
 * Record: 10 bytes giving the header's length (`%09d `), the header — decimal
 * numbers `<stdin: 0|1> <env count> <body bytes> <workdir bytes> <bytes of
 * each env entry>... <command bytes>` — then the body: the workdir, the
 * `NAME=value` entries and the command, back to back. Three reads take it
 * all, and fields are cut out by byte offset: the launcher runs in the C
 * locale (its environment is only its tag) until it exports the call's.
 * Stdin is `/dev/null` until the call brings data: then its pipe (fd 4)
 * becomes stdin (a socket as the launcher's own stdin would make bash take
 * it for an ssh login and source `~/.bashrc`).
 *
 * Made to look fresh before the command runs: `PWD` and `OLDPWD` as bash
 * sets them at start-up from the call's environment (a `PWD` naming the
 * workdir is kept, else the physical path; an `OLDPWD` that is a directory
 * is kept, else it is exported without a value), `SHLVL` one above the
 * call's, `SECONDS` 0, `$_` the shell's `$0`, the launcher's own variables
 * (`__dsh_*`) unset. A failed read (the server went away) ends the launcher.
 * Before it waits it closes every descriptor above its two pipes (fds 3
 * and 4): none reaches the command but the ones the call gives it.
 */
const LAUNCHER_SCRIPT = [
  `: dsh-launcher`,
  // While it waits: every descriptor but its pipes is closed (an embedding host's strays arrive as /dev/null, stray-descriptor-cover.ts).
  `for __dsh_x in /proc/self/fd/*; do __dsh_x=\${__dsh_x##*/}; if ((__dsh_x > 4)) && [[ -h /proc/self/fd/$__dsh_x ]]; then exec {__dsh_x}>&-; fi; done`,
  `IFS= read -r -N 10 -u 3 __dsh_x || exit 0`,
  `IFS= read -r -N "$((10#\${__dsh_x% }))" -u 3 __dsh_x || exit 0`,
  `__dsh_h=($__dsh_x)`,
  `IFS= read -r -N "\${__dsh_h[2]}" -u 3 __dsh_b || exit 0`,
  `exec 3<&-`,
  `__dsh_o=\${__dsh_h[3]} __dsh_e=()`,
  `for ((__dsh_k = 0; __dsh_k < __dsh_h[1]; __dsh_k++)); do __dsh_e+=("\${__dsh_b:__dsh_o:__dsh_h[4 + __dsh_k]}"); ((__dsh_o += __dsh_h[4 + __dsh_k])); done`,
  `BASH_EXECUTION_STRING=\${__dsh_b:__dsh_o}`,
  `cd -P -- "\${__dsh_b:0:__dsh_h[3]}" || exit 1`,
  `__dsh_p=$PWD`,
  `if ((__dsh_h[0])); then exec 0<&4 4<&-; else exec 4<&-; fi`,
  `unset -v OLDPWD`,
  `export -- "\${__dsh_e[@]}"`,
  `__dsh_q=\${OLDPWD-} __dsh_r=\${OLDPWD+1}`,
  `if [[ $PWD == /* && $PWD != "$__dsh_p" && $PWD -ef . ]]; then cd -L -- "$PWD" || PWD=$__dsh_p; else PWD=$__dsh_p; fi`,
  `if [[ $__dsh_r && -d $__dsh_q ]]; then OLDPWD=$__dsh_q; else unset -v OLDPWD; declare -x OLDPWD; fi`,
  `unset -v __dsh_x __dsh_h __dsh_b __dsh_o __dsh_e __dsh_k __dsh_p __dsh_q __dsh_r`,
  `SECONDS=0`,
  `: "$0"`,
  `eval "$BASH_EXECUTION_STRING"`,
  // One line: bash numbers the lines of an eval'd string from the line the eval is on.
].join('; ');

/** The launcher argv: `$0` is the shell path, as a plain `bash -c` has it, and there are no arguments. */
export function launcherArgv(shellPath: string): string[] {
  return [shellPath, '-c', LAUNCHER_SCRIPT, shellPath];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * Names bash owns (read-only, dynamic, or read or reset at start-up from the
 * environment), and the launcher's own: setting them in the running launcher
 * would not give the command what a plain spawn gives it, so such a call is
 * spawned plainly.
 */
const BASH_OWNED =
  /^(BASH.*|SHELLOPTS|ENV|RANDOM|SRANDOM|SECONDS|LINENO|EPOCHSECONDS|EPOCHREALTIME|HISTCMD|FUNCNAME|GROUPS|DIRSTACK|PPID|UID|EUID|COMP_WORDBREAKS|PIPESTATUS|POSIXLY_CORRECT|IFS|OPTIND|OPTERR|PS4|__dsh_.*)$/;

/**
 * The `NAME=value` entries the launcher exports to give the command exactly
 * `env`, or undefined when that cannot be done (then spawn plainly).
 * `SHLVL` is one higher, as a fresh bash raises it. `_` is bash's to set.
 */
export function launchEnv(env: Readonly<Record<string, string>>): string[] | undefined {
  const set: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (name === '_') continue;
    if (!IDENTIFIER.test(name) || BASH_OWNED.test(name)) return undefined;
    if (name === 'SHLVL') {
      // Only plain levels: bash clamps and rewrites odd ones (negative, huge, not a number) differently on each side.
      if (!/^(0|[1-9][0-9]{0,2})$/.test(value) || Number(value) > 900) return undefined;
      set.push(`SHLVL=${Number(value) + 1}`);
      continue;
    }
    set.push(`${name}=${value}`);
  }
  return set;
}

/** The record for one call (see `LAUNCHER_SCRIPT`). */
export function encodeLaunchRecord(call: {
  readonly workdir: string;
  readonly command: string;
  readonly hasStdin: boolean;
  readonly set: readonly string[];
}): Buffer {
  const workdir = Buffer.from(call.workdir, 'utf8');
  const command = Buffer.from(call.command, 'utf8');
  const fields = call.set.map((text) => Buffer.from(text, 'utf8'));
  const body = [workdir, ...fields, command];
  const bodyBytes = body.reduce((sum, part) => sum + part.length, 0);
  const header = [call.hasStdin ? 1 : 0, call.set.length, bodyBytes, workdir.length, ...fields.map((field) => field.length), command.length].join(' ');
  const lead = `${String(header.length).padStart(9, '0')} `;
  return Buffer.concat([Buffer.from(lead + header), ...body]);
}
