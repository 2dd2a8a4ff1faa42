import { bareSpawn, type BareChild, type BareStdio } from '../process/bare-spawn.js';
import { buildChildEnv, dropShellStartupVars } from '../process/child-env.js';
import { OutputCapture } from './output-capture.js';
import { COMMAND_FD, commandPipeStdio, exceedsArgLimit, READ_COMMAND_SCRIPT } from '../process/long-command.js';
import { readStat } from '../process/proc-stat.js';
import { LeftoverReaper, newestPid, newProcessTag, PROCESS_TAG_VARIABLE } from '../process/leftover-reaper.js';
import { ensureReaperWatchdog } from '../process/reaper-watchdog.js';
import { checkWorkdir, describeSpawnFailure } from '../process/workdir-check.js';
import type { ShellExit, StopReason } from '../process/shell-exit.js';
import type { ShellProcessOptions } from './shell-process-options.js';
import { leftoverCount, REAPER_FDS, reaperChannelOf, ReaperReport, reaperStdio, reportedExit } from '../process/namespace-reaper.js';
import { withStraysCovered } from '../process/stray-descriptor-cover.js';
import { ESCAPED_HOLDER_MS, LEFTOVER_DRAIN_MS, SLEEPING_RECHECKS, TIMEOUT_RECHECKS } from './shell-process-timing.js';
export type { ShellExit, StopReason } from '../process/shell-exit.js';
export type { ShellProcessOptions } from './shell-process-options.js';

/**
 * One `bash -c` in its own session and process group (node's `detached`:
 * setsid, so no controlling terminal and `/dev/tty` fails at once), with
 * bounded capture of both streams. The group never outlives the command:
 * when the leader has exited and output has drained (or the drain window
 * passed), whatever is left of the group gets SIGKILL. `exited` rejects only
 * when the shell could not be started at all.
 */
export class ShellProcess {
  readonly pid: number | undefined;
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  readonly exited: Promise<ShellExit>;
  /** Resolves when `keepOnTimeout` kept the command running past its timeout; never rejects. */
  readonly promoted: Promise<void>;

  private settle!: (exit: ShellExit) => void;
  private leader: { code: number | null; signal: string | null } | undefined;
  private reason: StopReason | undefined;
  private settled = false;
  private openStreams = 2;
  private timers: NodeJS.Timeout[] = [];
  private readonly destroyStreams: () => void;
  /** A caller that gave up may have asked for the command to become a task rather than die (promoteOnAbort). */
  private readonly onAbort = (): void => {
    if (this.options.promoteOnAbort === true && this.mayKeep() && this.options.keepOnTimeout?.() === true) return this.keep();
    this.stop('abort');
  };
  private reaper: LeftoverReaper | undefined;
  /** Leftovers counted inside the sandbox's PID namespace, read off the reaper's own channel. */
  private report: ReaperReport | undefined;
  private markPromoted!: () => void;
  private kept = false; // handed over by keepOnTimeout: the timeout no longer applies

  /** Checks the workdir, then spawns. Throws (before spawning) when the workdir is unusable. */
  static spawn(options: ShellProcessOptions): ShellProcess {
    checkWorkdir(options.spec.workdir);
    return new ShellProcess(options);
  }

  private constructor(private readonly options: ShellProcessOptions) {
    const { spec, config, spills } = options;
    const limits = { maxOutputBytes: config.maxOutputBytes, maxSpillBytes: config.maxSpillBytes };
    this.stdout = new OutputCapture(limits, spills, 'stdout', options.redactor);
    this.stderr = new OutputCapture(limits, spills, 'stderr', options.redactor);

    // bash -c sources $BASH_ENV (and sh-mode $ENV): that would be an rc file by the back door.
    const env = dropShellStartupVars(buildChildEnv(process.env, { allow: config.allowEnv, env: spec.env, dshEnv: spec.dshEnv }));
    const tag = newProcessTag();
    env[PROCESS_TAG_VARIABLE] = tag;
    // `_` is bash's own (the last argument, or the command's path): a pre-started shell's exec cannot pass the server's on.
    delete env._;
    ensureReaperWatchdog(config.shellPath);

    const viaPipe = exceedsArgLimit(spec.command);
    const reaped = options.reaperChannel === true;
    const argv = [config.shellPath, '-c', viaPipe ? READ_COMMAND_SCRIPT : spec.command];
    const keep = [...(viaPipe ? [COMMAND_FD] : []), ...(reaped ? REAPER_FDS : [])];
    const input = spec.stdin === undefined ? {} : { input: spec.stdin };
    const stdio: BareStdio[] = viaPipe
      ? commandPipeStdio(spec.command, spec.stdin).stdio
      : [spec.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'];
    if (reaped) for (const [fd, entry] of reaperStdio()) stdio[fd] = entry;
    for (let fd = 3; fd < stdio.length; fd++) stdio[fd] ??= 'ignore';
    // Wrapped only when spawned here: a call handed to a pre-started shell makes no confinement (cgroup, argv) of its own.
    let file = config.shellPath;
    const spawnPlainly = () => {
      const wrapped = options.wrapArgv ? options.wrapArgv(argv, spec) : argv;
      // An embedding host's inherited descriptors stay out of bwrap and the command (stray-descriptor-cover.ts);
      // a long command's bash keeps fd 3, so the closing shell does it then.
      const closing = viaPipe ? 'closing-shell' : 'prelude';
      const plan = withStraysCovered({ argv: wrapped, env, stdio }, { shellPath: config.shellPath, keep, closing });
      const [program, ...args] = plan.argv;
      file = program!;
      return bareSpawn(file, args, { cwd: spec.workdir, env: plan.env, stdio: plan.stdio, ...input });
    };
    // A pre-started shell becomes this command in place (same pid and group); else spawn it now.
    const handedOutAfter = options.prestarted === undefined ? undefined : newestPid();
    const launched = options.prestarted?.launch({ command: spec.command, workdir: spec.workdir, env, stdin: spec.stdin });
    const child: BareChild = (launched as BareChild | undefined) ?? spawnPlainly();
    const runsReaped = launched === undefined ? reaped : options.prestarted?.reaperChannel === true;
    this.pid = child.pid;
    this.exited = new Promise<ShellExit>((resolve) => {
      this.settle = resolve;
    });
    this.promoted = new Promise<void>((resolve) => {
      this.markPromoted = resolve;
    });
    if (this.pid !== undefined) this.reaper = new LeftoverReaper(tag, this.pid, launched === undefined ? this.pid : (handedOutAfter ?? 0));

    const { stdout, stderr } = child;
    const channel = runsReaped ? reaperChannelOf(child) : undefined;
    this.destroyStreams = () => {
      stdout.destroy();
      stderr.destroy();
      channel?.destroy();
    };

    if (this.pid === undefined) {
      this.settled = true;
      this.exited = child.then((result) => {
        throw new Error(describeSpawnFailure(file, spec.workdir, result));
      });
      this.exited.catch(() => undefined);
      return;
    }
    // The result promise is not used (it waits for every pipe holder), but it must not dangle.
    child.then(noop, noop);

    const onOutput = options.onOutput;
    stdout.on('data', (chunk: Buffer) => {
      this.stdout.write(chunk);
      onOutput?.(chunk, 0);
    });
    stderr.on('data', (chunk: Buffer) => {
      this.stderr.write(chunk);
      onOutput?.(chunk, 1);
    });
    stdout.once('close', () => this.onStreamClosed());
    stderr.once('close', () => this.onStreamClosed());
    stdout.on('error', noop);
    stderr.on('error', noop);
    if (channel !== undefined) {
      const report = new ReaperReport();
      this.report = report;
      this.openStreams++;
      channel.on('data', (chunk: Buffer) => report.take(chunk));
      channel.once('close', () => this.onStreamClosed());
      channel.on('error', noop);
    }
    child.once('exit', (code, signal) => this.onLeaderExit(code, signal));

    if (options.timeoutMs !== undefined) {
      this.timers.push(setTimeout(() => this.onTimeout(), options.timeoutMs));
    }
    const early = options.promoteAfterMs;
    if (options.keepOnTimeout && early !== undefined && early > 0 && (options.timeoutMs === undefined || early < options.timeoutMs)) {
      this.timers.push(setTimeout(() => this.onPromoteTime(), early));
    }
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Processes the reapers killed after the leader exited (`leftoverCount`: the two reapers' counts overlap). */
  get leftoversKilled(): number {
    return leftoverCount(this.reaper?.count ?? 0, this.report?.count, this.reason !== undefined);
  }

  /** Why the executor stopped the group while its leader still ran; undefined when the leader exited on its own. */
  get stopReason(): StopReason | undefined {
    return this.reason;
  }

  /**
   * Terminates the group: SIGTERM, then SIGKILL after `graceMs`. The first
   * reason wins; after the leader exited it only hastens the leftover kill.
   */
  stop(reason: StopReason): void {
    if (this.settled) return;
    if (this.leader !== undefined) {
      this.signalGroup('SIGKILL');
      return;
    }
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.signalGroup('SIGTERM');
    this.timers.push(setTimeout(() => this.signalGroup('SIGKILL'), this.options.config.graceMs));
  }

  /**
   * Whichever happened first wins. The timer can run before the leader's
   * exit is processed (it is a zombie awaiting our wait, or already reaped),
   * or while it runs its own exit path (on a CPU: bash then ignores a late
   * SIGTERM and exits 0); both finished first and keep their own outcome. A
   * runnable leader is looked at again shortly, a bounded number of times.
   */
  private onTimeout(retries = TIMEOUT_RECHECKS): void {
    if (this.settled || this.leader !== undefined || this.kept) return;
    const state = this.pid === undefined ? undefined : readStat(this.pid)?.state;
    if (state === undefined || state === 'Z' || state === 'X') return;
    const busy = state === 'R' || state === 'D' || retries > TIMEOUT_RECHECKS - SLEEPING_RECHECKS;
    if (busy && retries > 0) {
      this.timers.push(setTimeout(() => this.onTimeout(retries - 1), 1));
      return;
    }
    if (this.options.keepOnTimeout?.() === true) return this.keep();
    this.stop('timeout');
  }

  /** The early promotion time: hand over if the caller can take it now; else run on to the timeout. */
  private onPromoteTime(): void {
    if (this.mayKeep() && this.options.keepOnTimeout?.() === true) this.keep();
  }

  private mayKeep(): boolean {
    return !this.settled && this.leader === undefined && this.reason === undefined && !this.kept;
  }

  private keep(): void {
    this.kept = true;
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.markPromoted();
  }

  private onLeaderExit(code: number | null, signal: string | null): void {
    this.leader = { code, signal };
    if (this.openStreams === 0) {
      this.finish();
      return;
    }
    const killRest = (): void => {
      // The streams may have closed while the reap ran: `finish` did it all.
      if (this.settled) return;
      this.signalGroup('SIGKILL');
      this.timers.push(
        setTimeout(() => {
          this.destroyStreams();
          this.finish();
        }, ESCAPED_HOLDER_MS),
      );
    };
    this.timers.push(setTimeout(() => this.reapThen(killRest), LEFTOVER_DRAIN_MS));
  }

  private onStreamClosed(): void {
    this.openStreams--;
    if (this.openStreams === 0 && this.leader !== undefined) this.finish();
  }

  private finish(): void {
    if (this.settled || this.leader === undefined) return;
    this.settled = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    this.options.signal?.removeEventListener('abort', this.onAbort);
    const leader = this.leader;
    // Members that never held our pipes (`sleep 1000 >/dev/null &`), and those that left the group.
    this.reapThen(() => {
      this.signalGroup('SIGKILL');
      this.stdout.close();
      this.stderr.close();
      // Under the namespace reaper, a death by signal reaches the leader as 128 + n: the reaper's record says which.
      this.settle({ ...reportedExit(leader, this.report?.record), reason: this.reason });
    });
  }

  /** Kills the tag's carriers first, so the group kill after it leaves none of them uncounted. */
  private reapThen(then: () => void): void {
    if (this.reaper === undefined) then();
    else this.reaper.reap(then);
  }

  /**
   * Signals the whole group. Until the leader is reaped its pid pins the
   * group id; afterwards the id can only be reused by a new group once every
   * member is gone, and we signal within milliseconds of that.
   */
  private signalGroup(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    // Every finished command ends with one of these, usually hitting an empty
    // group (ESRCH): skip capturing a stack trace for an error we discard.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is already empty.
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
  }
}

function noop(): void {}
