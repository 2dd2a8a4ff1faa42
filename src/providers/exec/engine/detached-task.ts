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
 * Copies stdin into the stream's file `$1`, keeping a bounded part of it in
 * the sandbox (runCap): the first `L` bytes into `$1` itself, the rest into
 * segments `$1.1`, `$1.2`, … of `G` bytes each; once segment 2 has its first
 * byte `$1` is removed (a part would pass for the whole), and each later one's
 * first byte removes the one two before it. So the newest `G` bytes or more
 * stay, and never more than `L + G + 1` are there. One `dd` read at a time,
 * written at once (`head -c` would hold its output until it ends); its count
 * of bytes is the last line it prints (GNU and BusyBox alike). `cat` drains
 * what a failed write left, so the command never gets SIGPIPE for it; an
 * image without `dd` gets the whole stream in `$1`, uncapped.
 */
const CAPPED_COPY =
  'local f=$1 n=0 j=0 s t r b; : >>"$f"; command -v dd >/dev/null || { cat >>"$f"; return; }; while :; do ' +
  'if ((n < L)); then t=$f s=$((L - n)); else j=$(((n - L) / G + 1)) t=$f.$j s=$((L + j * G - n)); ((s == G)) && s=1; fi; ((s > 65536)) && s=65536; ' +
  "r=$(LC_ALL=C dd bs=$s count=1 2>&1 >>\"$t\") || break; r=${r##*$'\\n'}; b=${r%% *}; [[ $b =~ ^[0-9]+$ ]] && ((b > 0)) || break; " +
  'if ((n >= L && n == L + (j - 1) * G && j > 1)); then if ((j == 2)); then rm -f -- "$f"; else rm -f -- "$f.$((j - 2))"; fi; fi; n=$((n + b)); done; ' +
  '[[ $t == "$f" || -s $t ]] || rm -f -- "$t"; cat >/dev/null;';

/**
 * Reads `<bytes>\n` and then the command from stdin (so neither its length
 * nor its text is in any process's argv), then, in a background subshell on /dev/null that
 * outlives this exec: enters the workdir, runs the command in its own
 * process group with the exec tag in its environment only (the subshell
 * has none: killing the tag spares it), stdout and stderr each through a
 * copier (CAPPED_COPY) into `<run>.out` and `<run>.err`, and — once the
 * copiers have ended, or 5 s after the command if something it left running
 * holds its output open — writes how it ended to `<run>.status`
 * (a temporary file, then a rename): `exit:<n>`, `signal:<n>` or
 * `workdir:<problem>`. bash's own end notice (`Exit 143` vs `Terminated`,
 * read by `JOB_END_WAIT`) tells an exit status from a signal, as in the
 * one-shot wrapper.
 */
const DETACHED_LAUNCHER =
  'D=$1 R=$2 S=$3 w=$4 T=$5 L=$6 G=$7; IFS= read -r n || exit 124; C=; ((n)) && { LC_ALL=C IFS= read -r -N "$n" C || exit 124; }; ' +
  '( st() { printf "%s\\n" "$1" >"$D/$R.status.tmp" && mv -f -- "$D/$R.status.tmp" "$D/$R.status"; }; ' +
  'cd -- "$w" 2>/dev/null || { if [[ ! -e $w ]]; then st workdir:missing; elif [[ ! -d $w ]]; then st workdir:notdir; else st workdir:denied; fi; exit; }; ' +
  `k() { ${CAPPED_COPY} }; exec 3> >(k "$D/$R.out"); o=$!; exec 4> >(k "$D/$R.err" 3>&-); e=$!; ` +
  'set -m; exec 7<> <(:); ' +
  `${EXEC_TAG_VAR}=$T "$S" -c "$C" </dev/null >&3 2>&4 3>&- 4>&- 7>&- & p=$!; exec 3>&- 4>&-; ` +
  JOB_END_WAIT +
  'for ((i = 0; i < 50; i++)); do { kill -0 $o || kill -0 $e; } 2>/dev/null || break; read -t 0.1 -u 7 _; done; ' +
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
  /** How its output is kept (CAPPED_COPY); absent for a run whose files grow as it prints (a relay, or an older replica's run). */
  readonly cap?: RunCap;
}

/** A capped run's layout: `<run>.out` holds the first `bytes`, then segment `<n>` holds `segment` bytes from `bytes + (n - 1) · segment`. */
export interface RunCap {
  readonly bytes: number;
  readonly segment: number;
}

/**
 * The layout for the executor's limits, so a stream's files never hold more
 * than `maxSpillBytes`: segments of `maxOutputBytes` (what a read shows at
 * most, so the newest segments always hold a read's whole tail) where three
 * of them fit, and the stream's own file what the rest leaves.
 */
export function runCap(limits: { readonly maxOutputBytes: number; readonly maxSpillBytes: number }): RunCap {
  const max = limits.maxSpillBytes;
  const segment = Math.max(1, Math.min(limits.maxOutputBytes, Math.floor((max - 1) / 2)));
  return { bytes: Math.max(0, max - segment - 1), segment };
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
  /** The executor's limits: the sandbox keeps at most `maxSpillBytes` of each stream (runCap). */
  readonly limits: { readonly maxOutputBytes: number; readonly maxSpillBytes: number };
}

/** Starts the command detached; resolves once the launching exec returned (the command then runs on its own). */
export async function launchDetached(options: LaunchOptions): Promise<DetachedRun> {
  const cap = runCap(options.limits);
  const run: DetachedRun = {
    containerId: options.containerId,
    dir: path.join(options.sessionDir, TASK_FILES_DIR),
    run: `r-${randomBytes(8).toString('hex')}`,
    tag: randomBytes(8).toString('hex'),
    workdir: options.workdir,
    cap,
  };
  const channel = await options.engine.exec(options.containerId, {
    argv: ['bash', '-c', DETACHED_LAUNCHER, 'dsh-task', run.dir, run.run, options.shellPath, options.workdir, run.tag, String(cap.bytes), String(cap.segment)],
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
