import { exceedsArgLimit, READ_COMMAND_SCRIPT } from './long-command.js';

/**
 * A pre-started one-shot shell is a tiny bash "launcher" that blocks on its
 * private pipe (fd 3) until a call hands it a record, then `exec`s the
 * call's `bash -c` in place: the command runs in the very process (pid and
 * process group) the executor spawned and tracks. The command reaches bash
 * only as data (`read -N` into a variable, then an argv word of `exec`), never
 * as shell code of the launcher.
 *
 * Record: 10 bytes giving the header's length (`%09d `), the header — decimal
 * numbers `<stdin: 0|1> <long: 0|1> <env count> <unset count> <body bytes>
 * <workdir bytes> <bytes of each env entry>... <bytes of each unset name>...
 * <command bytes>` — then the body: the workdir, the `NAME=value` entries, the
 * names to unset and (for a short command) the command, back to back. Three
 * reads take it all, and fields are cut out by byte offset: the launcher runs
 * in the C locale (its environment is only its tag) until it exports the
 * call's. A long command (over the argv limit, see long-command.ts) stays on
 * fd 3 for `READ_COMMAND_SCRIPT`, as in the plain spawn. Stdin is `/dev/null`
 * until the call brings data: then its pipe (fd 4) becomes stdin (a socket as
 * the launcher's own stdin would make bash take it for an ssh login and
 * source `~/.bashrc`). The launcher's own variables (`__dsh_*`, never
 * exported) vanish with the `exec`; a call whose env names one of them is
 * not handed over (see `launchEnv`). A failed read (the server went away)
 * ends the launcher.
 */
export const LAUNCHER_SCRIPT = `IFS= read -r -N 10 -u 3 __dsh_x || exit 0
IFS= read -r -N "$((10#\${__dsh_x% }))" -u 3 __dsh_x || exit 0
__dsh_h=($__dsh_x)
IFS= read -r -N "\${__dsh_h[4]}" -u 3 __dsh_b || exit 0
__dsh_w=\${__dsh_b:0:__dsh_h[5]} __dsh_o=\${__dsh_h[5]} __dsh_e=() __dsh_u=()
for ((__dsh_k = 0; __dsh_k < __dsh_h[2] + __dsh_h[3]; __dsh_k++)); do
  __dsh_v=\${__dsh_b:__dsh_o:__dsh_h[6 + __dsh_k]}
  ((__dsh_o += __dsh_h[6 + __dsh_k]))
  if ((__dsh_k < __dsh_h[2])); then __dsh_e+=("$__dsh_v"); else __dsh_u+=("$__dsh_v"); fi
done
if ((__dsh_h[1] == 0)); then
  exec 3<&-
  set -- "$1" -c "\${__dsh_b:__dsh_o}"
else
  set -- "$1" -c "$2"
fi
cd -P -- "$__dsh_w" || exit 1
if ((__dsh_h[0])); then exec 0<&4 4<&-; else exec 4<&-; fi
export -- "\${__dsh_e[@]}"
unset -v -- "\${__dsh_u[@]}"
exec -- "$@"
`;

/** `$0` of a waiting launcher (it shows in the process table). */
export const LAUNCHER_NAME = 'dsh-launcher';

/** The launcher argv: the shell runs the script with the call's shell path and the long-command script as `$1`, `$2`. */
export function launcherArgv(shellPath: string): string[] {
  return [shellPath, '-c', LAUNCHER_SCRIPT, LAUNCHER_NAME, shellPath, READ_COMMAND_SCRIPT];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * Names bash owns (read-only, dynamic, or read at start-up from the
 * environment), and the launcher's own: setting them in the launcher would
 * not give the command what a plain spawn gives it, so such a call is
 * spawned plainly.
 */
const BASH_OWNED = /^(BASH.*|SHELLOPTS|ENV|RANDOM|SRANDOM|SECONDS|LINENO|EPOCHSECONDS|EPOCHREALTIME|HISTCMD|FUNCNAME|GROUPS|DIRSTACK|PPID|UID|EUID|COMP_WORDBREAKS|PIPESTATUS|POSIXLY_CORRECT|__dsh_.*)$/;
/** What bash exports by itself in the launcher: dropped unless the call's env has them. */
const LAUNCHER_OWN = ['PWD', 'OLDPWD', 'SHLVL'];

/**
 * The launcher's `export` and `unset` lists that leave the exec'd shell with
 * exactly `env`, or undefined when that cannot be done (then spawn plainly).
 * `SHLVL` is one higher: bash's `exec` lowers it by one before the new shell
 * raises it again, as a plain spawn's would. `_` is bash's to set.
 */
export function launchEnv(env: Readonly<Record<string, string>>): { set: string[]; unset: string[] } | undefined {
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
  const unset = LAUNCHER_OWN.filter((name) => !Object.hasOwn(env, name));
  return { set, unset };
}

/** The record for one call (see `LAUNCHER_SCRIPT`). */
export function encodeLaunchRecord(call: {
  readonly workdir: string;
  readonly command: string;
  readonly hasStdin: boolean;
  readonly set: readonly string[];
  readonly unset: readonly string[];
}): Buffer {
  const long = exceedsArgLimit(call.command);
  const workdir = Buffer.from(call.workdir, 'utf8');
  const command = Buffer.from(call.command, 'utf8');
  const fields = [...call.set, ...call.unset].map((text) => Buffer.from(text, 'utf8'));
  const body = [workdir, ...fields, ...(long ? [] : [command])];
  const bodyBytes = body.reduce((sum, part) => sum + part.length, 0);
  const header = [
    call.hasStdin ? 1 : 0,
    long ? 1 : 0,
    call.set.length,
    call.unset.length,
    bodyBytes,
    workdir.length,
    ...fields.map((field) => field.length),
    command.length,
  ].join(' ');
  const lead = `${String(header.length).padStart(9, '0')} `;
  return Buffer.concat([Buffer.from(lead + header), ...body, ...(long ? [command] : [])]);
}
