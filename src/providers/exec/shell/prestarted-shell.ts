import type { Writable } from 'node:stream';
import { bareSpawn, type BareChild, type BareStdio } from '../process/bare-spawn.js';
import { INSTANCE_ID, PROCESS_TAG_VARIABLE } from '../process/leftover-reaper.js';
import { ensureReaperWatchdog } from '../process/reaper-watchdog.js';
import { encodeLaunchRecord, launcherArgv, launchEnv } from '../process/shell-launcher.js';
import { exceedsArgLimit } from '../process/long-command.js';
import { REAPER_FDS, reaperStdio } from '../process/namespace-reaper.js';
import { withStraysCovered, type StraySpawn } from '../process/stray-descriptor-cover.js';

/** The launcher's own pipes: the call's record (fd 3) and its stdin (fd 4). */
const LAUNCHER_FDS: readonly number[] = [3, 4];

/** The spawned launcher (the same kind of child a plain spawn gives `ShellProcess`). */
type LauncherChild = BareChild;

interface LauncherStart {
  readonly shellPath: string;
  /** Where the launcher waits; the call's workdir is entered on hand-over. */
  readonly cwd: string;
  /** Confining executors: the argv that runs the launcher confined (same process group). */
  readonly wrapArgv?: (argv: string[]) => string[];
  /** Set when `wrapArgv` runs the launcher under the namespace reaper: it reports on its channel (see namespace-reaper.ts). */
  readonly reaperChannel?: boolean;
}

let launcherSequence = 0;

/**
 * One fresh shell started ahead of a call (see shell-launcher.ts), in its own
 * session and process group like a plain spawn, with an environment of only
 * its own tag (`<instance>.p<n>`: the reaper watchdog's prefix covers it, and
 * it ends by itself when its pipe closes). Used at most once.
 */
export class PrestartedShell {
  private alive = true;
  private taken = false;
  private handed = false;

  private constructor(
    private readonly child: LauncherChild,
    /** See `LauncherStart.reaperChannel`: the command it becomes reports its leftovers there. */
    readonly reaperChannel: boolean,
  ) {
    child.once('exit', () => {
      this.alive = false;
    });
    // Errors of a discarded or dead launcher's pipes are of no interest.
    for (const stream of child.stdio) stream?.on('error', noop);
    child.then(noop, noop);
    // A waiting shell must not keep the process alive (a CLI call's host, a test worker): only a handed-over one does.
    setReferenced(child, false);
  }

  /** Spawns a launcher; undefined when it could not be started. Never throws. */
  static start(options: LauncherStart): PrestartedShell | undefined {
    ensureReaperWatchdog(options.shellPath);
    launcherSequence += 1;
    const argv = launcherArgv(options.shellPath);
    const wrapped = options.wrapArgv ? options.wrapArgv(argv) : argv;
    const keep = [...LAUNCHER_FDS, ...(options.reaperChannel === true ? REAPER_FDS : [])];
    // An embedding host's inherited descriptors stay out of bwrap and the launcher, which closes what is left itself.
    const plan = withStraysCovered(launcherSpawn(options, wrapped), { shellPath: options.shellPath, keep, closing: 'closes-itself' });
    const [file, ...args] = plan.argv;
    try {
      const child = bareSpawn(file!, args, { cwd: options.cwd, env: plan.env, stdio: plan.stdio });
      if (child.pid === undefined) {
        child.then(noop, noop);
        return undefined;
      }
      return new PrestartedShell(child, options.reaperChannel === true);
    } catch {
      return undefined;
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** It became a call's command. */
  get handedOver(): boolean {
    return this.handed;
  }

  /** Still waiting for its call. */
  get usable(): boolean {
    return this.alive && !this.taken && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Hands the call over: the launcher runs the call's command with exactly
   * `env`, in `workdir`, stdin `/dev/null` or `stdin`. Undefined (the
   * launcher untouched) when the call cannot be given this way: an env the
   * launcher cannot set, or a command over the argv limit (it travels on
   * fd 3 of a plain spawn, see long-command.ts).
   */
  launch(call: { command: string; workdir: string; env: Record<string, string>; stdin: string | undefined }): LauncherChild | undefined {
    if (!this.usable || exceedsArgLimit(call.command)) return undefined;
    const set = launchEnv(call.env);
    if (set === undefined) return undefined;
    this.taken = true;
    this.handed = true;
    setReferenced(this.child, true);
    // Node gives the extra pipes as duplex sockets.
    const control = this.child.stdio[3] as unknown as Writable;
    control.end(encodeLaunchRecord({ workdir: call.workdir, command: call.command, hasStdin: call.stdin !== undefined, set }));
    const stdin = this.child.stdio[4] as unknown as Writable;
    if (call.stdin === undefined) stdin.destroy();
    else stdin.end(call.stdin);
    return this.child;
  }

  /** Kills an unused launcher's group and lets go of its pipes. */
  discard(): void {
    if (this.taken) return;
    this.taken = true;
    const pid = this.child.pid;
    if (pid !== undefined && this.alive) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const stream of this.child.stdio) stream?.destroy();
  }
}

/** The launcher's spawn: stdin /dev/null, the two pipes of the call, the reaper's descriptors when it runs under one. */
function launcherSpawn(options: LauncherStart, argv: readonly string[]): StraySpawn {
  const stdio: BareStdio[] = ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'];
  if (options.reaperChannel === true) for (const [fd, entry] of reaperStdio()) stdio[fd] = entry;
  return { argv, env: { [PROCESS_TAG_VARIABLE]: `${INSTANCE_ID}.p${launcherSequence}` }, stdio };
}

function setReferenced(child: LauncherChild, referenced: boolean): void {
  if (referenced) child.ref();
  else child.unref();
  for (const stream of child.stdio) {
    const handle = stream as unknown as { ref?: () => void; unref?: () => void } | null;
    if (referenced) handle?.ref?.();
    else handle?.unref?.();
  }
}

function noop(): void {}
