import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { JOB_END_WAIT } from '../process/job-end-wait.js';
import { EXEC_TAG_VAR, type ContainerEngine } from './container-engine.js';

// A shared session's background command (docs/shared-sessions.md#tasks): started by one
// engine exec that returns at once, it belongs to the sandbox, not to the server that
// started it, and leaves its output and its end in files every replica on the host reads.

/** The session directory's sub-directory the sandbox may write (the rest of it is read-only there). */
export const TASK_FILES_DIR = 'tasks';

/**
 * Reads `<bytes>\n` and then the command from stdin (so neither its length
 * nor its text is in any process's argv), then, in a background subshell on /dev/null that
 * outlives this exec: enters the workdir, runs the command in its own
 * process group with the exec tag in its environment only (the subshell
 * has none: killing the tag spares it), stdout and stderr appended to
 * `<run>.out` and `<run>.err`, and writes how it ended to `<run>.status`
 * (a temporary file, then a rename): `exit:<n>`, `signal:<n>` or
 * `workdir:<problem>`. bash's own end notice (`Exit 143` vs `Terminated`,
 * read by `JOB_END_WAIT`) tells an exit status from a signal, as in the
 * one-shot wrapper.
 */
const DETACHED_LAUNCHER =
  'D=$1 R=$2 S=$3 w=$4 T=$5; IFS= read -r n || exit 124; C=; ((n)) && { LC_ALL=C IFS= read -r -N "$n" C || exit 124; }; ' +
  '( st() { printf "%s\\n" "$1" >"$D/$R.status.tmp" && mv -f -- "$D/$R.status.tmp" "$D/$R.status"; }; ' +
  'cd -- "$w" 2>/dev/null || { if [[ ! -e $w ]]; then st workdir:missing; elif [[ ! -d $w ]]; then st workdir:notdir; else st workdir:denied; fi; exit; }; ' +
  'set -m; exec 7<> <(:); ' +
  `${EXEC_TAG_VAR}=$T "$S" -c "$C" </dev/null >>"$D/$R.out" 2>>"$D/$R.err" 7>&- & p=$!; ` +
  JOB_END_WAIT +
  'if ((s > 128)) && [[ $d != Done && $d != Exit ]]; then st signal:$((s - 128)); else st exit:$s; fi ' +
  ') </dev/null >/dev/null 2>&1 & exit 0';

/** Where a detached command is and how to stop it: what any replica needs to read or kill it. */
export interface DetachedRun {
  readonly containerId: string;
  /** The session directory's `tasks` directory on the host (the sandbox sees it at the same path). */
  readonly dir: string;
  /** The files' common name: `<dir>/<run>.out`, `.err`, `.status`. */
  readonly run: string;
  /** The command tree's `DSH_EXEC_TAG` (see `killTagged`). */
  readonly tag: string;
  readonly workdir: string;
}

/** The three files of a run. */
export function runFiles(run: Pick<DetachedRun, 'dir' | 'run'>): { readonly out: string; readonly err: string; readonly status: string } {
  const base = path.join(run.dir, run.run);
  return { out: `${base}.out`, err: `${base}.err`, status: `${base}.status` };
}

interface LaunchOptions {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  /** The session directory (its `tasks` sub-directory is writable in the sandbox). */
  readonly sessionDir: string;
  readonly shellPath: string;
  readonly command: string;
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly user?: string;
}

/** Starts the command detached; resolves once the launching exec returned (the command then runs on its own). */
export async function launchDetached(options: LaunchOptions): Promise<DetachedRun> {
  const run: DetachedRun = {
    containerId: options.containerId,
    dir: path.join(options.sessionDir, TASK_FILES_DIR),
    run: `r-${randomBytes(8).toString('hex')}`,
    tag: randomBytes(8).toString('hex'),
    workdir: options.workdir,
  };
  const channel = await options.engine.exec(options.containerId, {
    argv: ['bash', '-c', DETACHED_LAUNCHER, 'dsh-task', run.dir, run.run, options.shellPath, options.workdir, run.tag],
    env: options.env,
    workdir: '/',
    tty: false,
    stdin: true,
    ...(options.user === undefined ? {} : { user: options.user }),
  });
  let errors = '';
  channel.stdout.resume();
  channel.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  channel.write(`${Buffer.byteLength(options.command, 'utf8')}\n${options.command}`);
  const { exitCode } = await channel.exited;
  channel.detach();
  if (exitCode !== 0) throw new Error(`the background command could not be started (status ${String(exitCode)}${errors === '' ? '' : `: ${errors.trim()}`})`);
  return run;
}
