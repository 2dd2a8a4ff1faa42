import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BareStdio } from './bare-spawn.js';
import { closingArgv, strayDescriptors } from './stray-descriptors.js';

/**
 * Keeping an embedding host's inheritable descriptors (stray-descriptors.ts)
 * from a one-shot command without a process of its own per call.
 *
 * The guarantee comes from the spawn itself: node's child, before it execs,
 * puts every stdio entry in place with dup2, so each stray descriptor is
 * given a stdio entry of /dev/null (read-only). The host's descriptor is
 * replaced in the child before anything of ours or the command's runs
 * there; the host's process keeps its own. What the child then holds at
 * those numbers is harmless, and the command's own bash closes it before
 * the command runs: through `BASH_ENV` (a script bash sources before the
 * `-c` string, read here from a nameless file passed at `PRELUDE_FD`), or,
 * for a pre-started launcher, in the launcher's script (shell-launcher.ts).
 * Where neither can be used, the closing shell does it as before (one more
 * exec of bash, same pid), over the covered stdio still.
 */
export interface StraySpawn {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly stdio: readonly BareStdio[];
}

interface CoverOptions {
  readonly shellPath: string;
  /** Descriptors passed on purpose, for the closing shell to keep. */
  readonly keep: readonly number[];
  /**
   * `closes-itself`: the program closes every descriptor it was not given
   * on purpose (the launcher); `prelude`: `argv` ends in the command's own
   * `bash -c`, which needs no descriptor above 2; `closing-shell`: neither.
   */
  readonly closing: 'closes-itself' | 'prelude' | 'closing-shell';
}

/** Where the prelude arrives: clear of 3–7 (long command, launcher, namespace reaper) and 9 (the sandbox's seccomp filter). */
export const PRELUDE_FD = 8;

/** Every stray gets a stdio entry: 1,024 of them cost node up to ~1 ms more per spawn here, 4,096 about the closing shell's exec. */
const MAX_COVERED_FD = 1023;

/**
 * Sourced by the command's bash (`BASH_ENV`): closes every descriptor above
 * 2 (`-h`: the glob's own directory descriptor is gone when it is looked
 * at), then leaves nothing of its own: its variable and `BASH_ENV` unset,
 * `$_` the shell's `$0` as at start-up, `$?` 0. Builtins only, so the hash
 * table stays empty.
 */
const PRELUDE =
  'for __dsh_fd in /proc/self/fd/*; do __dsh_fd=${__dsh_fd##*/}; ' +
  'if ((__dsh_fd > 2)) && [[ -h /proc/self/fd/$__dsh_fd ]]; then exec {__dsh_fd}>&-; fi; done; ' +
  'unset -v BASH_ENV __dsh_fd; : "$0"\n';

/**
 * Names that change how bash starts, globs or runs builtins (options,
 * posix mode, exported functions): with one of them set the prelude might
 * not run as written, so the closing shell is used.
 */
const STARTUP_NAMES = /^(BASH.*|SHELLOPTS|POSIXLY_CORRECT|GLOBIGNORE)$/;

/** `spawn` as it must be made in this process: unchanged when it holds no inheritable descriptor (the CLI, most embedders). */
export function withStraysCovered(spawn: StraySpawn, options: CoverOptions, strays = strayDescriptors()): StraySpawn {
  if (strays.length === 0) return spawn;
  const covered = strays[strays.length - 1]! <= MAX_COVERED_FD ? coveredStdio(spawn.stdio, strays) : undefined;
  if (covered !== undefined && options.closing === 'closes-itself') return { ...spawn, stdio: covered };
  const prelude = covered !== undefined && options.closing === 'prelude' && preludeRuns(spawn.env) && isFree(covered, PRELUDE_FD) ? preludeFile() : null;
  if (covered !== undefined && prelude !== null) {
    covered[PRELUDE_FD] = prelude;
    return { argv: spawn.argv, env: { ...spawn.env, BASH_ENV: `/proc/self/fd/${PRELUDE_FD}` }, stdio: fillHoles(covered) };
  }
  // Covered all the same where it can be: the closing shell then only tidies up.
  return { argv: closingArgv(spawn.argv, options.shellPath, options.keep), env: spawn.env, stdio: covered ?? spawn.stdio };
}

/** `stdio` with /dev/null at every stray descriptor it does not fill itself; undefined when /dev/null cannot be opened. */
function coveredStdio(stdio: readonly BareStdio[], strays: readonly number[]): BareStdio[] | undefined {
  const placeholder = devNull();
  if (placeholder === null) return undefined;
  const covered = [...stdio];
  for (const fd of strays) if (isFree(covered, fd)) covered[fd] = placeholder;
  return fillHoles(covered);
}

/** 'ignore' above 2 leaves the parent's descriptor in place in the child (libuv): it counts as free. */
function isFree(stdio: readonly BareStdio[], fd: number): boolean {
  return stdio[fd] === undefined || stdio[fd] === 'ignore';
}

/** Node takes a hole in the list for 'pipe'. */
function fillHoles(stdio: BareStdio[]): BareStdio[] {
  for (let fd = 0; fd < stdio.length; fd++) stdio[fd] ??= 'ignore';
  return stdio;
}

function preludeRuns(env: Readonly<Record<string, string>>): boolean {
  return !Object.keys(env).some((name) => STARTUP_NAMES.test(name));
}

let placeholderFd: number | null | undefined;

/** /dev/null, opened once (close-on-exec here: only a stdio entry passes it on). */
function devNull(): number | null {
  if (placeholderFd === undefined) {
    try {
      placeholderFd = fs.openSync('/dev/null', 'r');
    } catch {
      placeholderFd = null;
    }
  }
  return placeholderFd;
}

let preludeFd: number | null | undefined;

/**
 * The prelude, held only by an open descriptor (written, made read-only,
 * opened, unlinked): nothing on disk another process could change, and no
 * process without a capability can write it through the descriptor. Each
 * bash opens `/proc/self/fd/8` anew, with an offset of its own. Null when it
 * cannot be made (the closing shell is used then).
 */
function preludeFile(): number | null {
  if (preludeFd !== undefined) return preludeFd;
  let dir: string | undefined;
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-prelude-'));
    const file = path.join(dir, 'close-fds.bash');
    fs.writeFileSync(file, PRELUDE, { mode: 0o400 });
    preludeFd = fs.openSync(file, 'r');
  } catch {
    preludeFd = null;
  } finally {
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  }
  return preludeFd;
}
