import { inject, injectable, optional, preDestroy } from 'inversify';
import type { CommandConfinement } from '../../exec/process/command-confinement.js';
import { FallbackPlanner } from '../../policy/planner/fallback-planner.js';
import { resolveExecutorConfig } from '../../exec/shell/executor-config.js';
import { CapturedBackgroundProcess } from '../../exec/shell/captured-background-process.js';
import { localBackground } from '../../exec/shell/local-background-process.js';
import { ProgressReporter } from '../../exec/shell/progress-reporter.js';
import {
  ExecSpec,
  ExecutorConfig,
  type BackgroundProcess,
  type ExecRequest,
  type RunOptions,
  type RunResult,
  type ShellExecutor,
} from '../../exec/shell/shell-executor.js';
import { ShellProcess } from '../../exec/shell/shell-process.js';
import { SpillDirectory } from '../../exec/shell/spill-directory.js';
import { Redactor } from '../../output-filter/redactor.js';
import { PrestartedShell } from '../../exec/shell/prestarted-shell.js';
import { PrestartSlots } from './prestart-slots.js';
import { reapingArgv } from '../../exec/process/namespace-reaper.js';
import { CallLimitGroups, denialOf, LazyLimitGroup, releaseOnExit, settleLimits } from './confined-call-facts.js';
import { abortedBeforeStart, continuedResult, finishedResult } from '../../exec/shell/run-results.js';
import { monotonicMs } from '../../../core/monotonic-ms.js';

/**
 * The default executor: runs each command as a fresh non-login `bash -c` on
 * this machine, in its own session and process group, with bounded output
 * (see `OutputCapture`) and the child env of `buildChildEnv`.
 *
 * Obligations: `run` resolves for every command outcome (non-zero exit,
 * signal, timeout, caller abort) and rejects only when the command could not
 * start (pre-aborted signal, unusable workdir, missing shell). No process
 * group outlives its command, and `dispose()` stops every group still running
 * and deletes the spill directory. Spill files of finished commands stay
 * readable until `dispose()`. A run cut short by `dispose()` resolves with
 * neither `timedOut` nor `aborted`: only its signal says it was stopped.
 *
 * Every spawn applies its spec's confinement as planned (`spec.confinement`;
 * a spec that carries none gets the policy's fallback plan, from a bound
 * `FallbackPlanner`, which throws rather than run it unconfined). A
 * confined or planned command's spill files go to a subdirectory of its
 * session, which its confined commands may read and no other session's can.
 * Confined foreground results carry `confinementDenied`.
 *
 * With `prestart` (the default) a foreground run takes its session's shell
 * started ahead when it was started the same way (see prestart-slots.ts and
 * shell-launcher.ts); the next one is started after the result is returned.
 */
/** Where a command's spills go and how it is wrapped: the `ShellProcess` options a confinement decides. */
interface Placement {
  readonly spills: SpillDirectory;
  readonly wrapArgv?: (argv: string[]) => string[];
  readonly reaperChannel?: boolean;
}

@injectable()
export class LocalShellExecutor implements ShellExecutor {
  readonly config: ExecutorConfig;
  private readonly spills: SpillDirectory;
  private readonly live = new Set<ShellProcess>();
  private readonly prestarted: PrestartSlots;
  private readonly limitGroups = new CallLimitGroups();
  private handedOver = 0;
  private disposing: Promise<void> | undefined;

  /** Throws `invalid executor config: ...` for a bad config. */
  constructor(
    @inject(ExecutorConfig) @optional() config?: Partial<ExecutorConfig>,
    @inject(FallbackPlanner) @optional() private readonly fallback?: FallbackPlanner,
    @inject(Redactor) @optional() private readonly redactor?: Redactor,
  ) {
    this.config = resolveExecutorConfig(config);
    this.spills = new SpillDirectory('dsh-shell-', this.config.maxRetainedSpillBytes);
    this.prestarted = new PrestartSlots(this.config.prestartIdleMs);
  }

  /** Calls that ran in a pre-started shell (for diagnostics and tests). */
  get prestartedRuns(): number {
    return this.handedOver;
  }

  /** Pids of the shells waiting for a session's next call (for diagnostics and tests). */
  get prestartedPids(): number[] {
    return this.prestarted.pids;
  }

  /** The private spill directory, once a command has spilled (for diagnostics and tests). */
  get spillDirectory(): string | undefined {
    return this.spills.path;
  }

  checkRequest(request: ExecRequest): ExecSpec {
    return this.withDefaultConfinement(ExecSpec.check(request, this.config));
  }

  async run(given: ExecSpec, options: RunOptions = {}): Promise<RunResult> {
    this.checkOpen();
    const spec = this.applicable(given);
    const confined = spec.confinement ?? undefined;
    const { signal, onProgress, keepOnTimeout, promoteAfterMs, promoteOnAbort } = options;
    if (signal?.aborted) throw abortedBeforeStart(signal);

    const { timeoutMs } = spec;
    const progress = onProgress === undefined ? undefined : new ProgressReporter(onProgress);
    const startedAt = monotonicMs();
    const limits = new LazyLimitGroup(confined);
    const { readable, placement } = this.spillsAndWrap(spec, confined, limits);
    const prestartKey = this.config.prestart ? prestartKeyOf(confined, readable) : undefined;
    const prestarted = prestartKey === undefined ? undefined : this.prestarted.take(spec.session, prestartKey);
    if (prestartKey !== undefined) this.prestarted.begin(spec.session);
    // The next call's shell is started once this result is on its way (and the session's other calls have ended).
    const refill = (): void => {
      if (prestartKey === undefined) return;
      this.prestarted.end(spec.session);
      setImmediate(() => this.refillPrestart(spec, confined, prestarted, prestartKey));
    };
    let shell: ShellProcess;
    try {
      shell = ShellProcess.spawn({
        spec,
        config: this.config,
        ...placement,
        ...(prestarted === undefined ? {} : { prestarted }),
        redactor: this.redactor,
        timeoutMs,
        ...(signal === undefined ? {} : { signal }),
        ...(keepOnTimeout === undefined ? {} : { keepOnTimeout }),
        ...(promoteAfterMs === undefined ? {} : { promoteAfterMs }),
        ...(promoteOnAbort === undefined ? {} : { promoteOnAbort }),
        ...(progress === undefined ? {} : { onOutput: (chunk: Buffer, stream: 0 | 1) => progress.feed(chunk, stream) }),
      });
    } catch (error) {
      void limits.made?.release();
      refill();
      throw error;
    }
    if (prestarted?.handedOver === true) this.handedOver++;
    const group = this.limitGroups.ofCommand(prestarted, limits.made);
    this.track(shell);
    let exit;
    try {
      exit = await Promise.race([shell.exited, shell.promoted.then(() => undefined)]);
    } finally {
      progress?.stop();
      refill();
    }
    if (exit === undefined) {
      releaseOnExit(shell, group);
      return continuedResult(shell, timeoutMs, monotonicMs() - startedAt, signal?.aborted === true);
    }
    const result = finishedResult(shell.stdout, shell.stderr, exit, timeoutMs, startedAt);
    const limitsReached = settleLimits(group);
    return {
      ...result,
      ...(confined ? { confinementDenied: denialOf(confined, exit, result.stderr) } : {}),
      ...(shell.leftoversKilled === 0 ? {} : { leftoversKilled: shell.leftoversKilled }),
      ...(limitsReached.length === 0 ? {} : { limitsReached }),
    };
  }

  /**
   * Starts a background command. An unusable workdir or a missing shell does
   * not reject: the handle settles `{ error }` and its first read shows the
   * error. Rejects only for an invalid command or a disposed executor.
   */
  async start(given: ExecSpec): Promise<BackgroundProcess> {
    this.checkOpen();
    const spec = this.applicable(given);
    const confined = spec.confinement ?? undefined;
    const limits = new LazyLimitGroup(confined);
    let shell: ShellProcess;
    try {
      shell = ShellProcess.spawn({
        spec,
        config: this.config,
        ...this.spillsAndWrap(spec, confined, limits).placement,
        redactor: this.redactor,
      });
    } catch (error) {
      void limits.made?.release();
      return CapturedBackgroundProcess.failed(error instanceof Error ? error : new Error(String(error)));
    }
    releaseOnExit(shell, limits.made);
    this.track(shell);
    return localBackground(shell);
  }

  /**
   * Stops every live group (TERM, then KILL after the grace), awaits them,
   * deletes the spills. Idempotent; also runs when the container deactivates
   * the singleton (module unload, container teardown).
   */
  @preDestroy()
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      this.prestarted.dispose();
      const running = [...this.live];
      for (const shell of running) shell.stop('dispose');
      await Promise.allSettled(running.map((shell) => shell.exited));
      if (!this.config.keepSpills) await this.spills.remove();
    })();
    return this.disposing;
  }

  /** `given` as this executor applies it: checked (once) against its limits, with a confinement decided. */
  private applicable(given: ExecSpec): ExecSpec {
    return this.withDefaultConfinement(ExecSpec.of(given, this.config));
  }

  /** A spec nobody planned gets the policy's fallback plan (which throws when it cannot be confined). */
  private withDefaultConfinement(spec: ExecSpec): ExecSpec {
    if (spec.confinement !== undefined || this.fallback === undefined) return spec;
    return spec.with({ confinement: this.fallback.forSession(spec.session) ?? null });
  }

  /** The spill directory of the spec's session (its own subdirectory), and the confining wrapper that may read it. */
  private spillsAndWrap(
    spec: ExecSpec,
    confined: CommandConfinement | undefined,
    limits?: LazyLimitGroup,
  ): { readable: string[]; placement: Placement } {
    // Grouped whenever a confinement was decided, so even an escalated unconfined call's spill stays readable to the session.
    const spills = spec.confinement !== undefined ? this.spills.group(spec.session?.id ?? '') : this.spills;
    if (!confined) return { readable: [], placement: { spills } };
    // Bound only if it exists (bwrap's --ro-bind-try): spills of this run appear after the spawn, for the next call.
    const own = spills.viewPath;
    const readable = own === undefined ? [] : [own];
    const wrap = (argv: string[], reaped = false): string[] => {
      const group = limits?.make();
      const options = { readable, cwd: spec.workdir, ...(group ? { limits: group } : {}), ...(reaped ? { termSparesWrapper: true } : {}) };
      return confined.wrapArgv(argv, options);
    };
    if (confined.pidNamespace !== true) return { readable, placement: { spills, wrapArgv: (argv) => wrap(argv) } };
    // What the command leaves ends with its namespace: counted in there, and how it ended told (namespace-reaper.ts).
    return { readable, placement: { spills, wrapArgv: (argv) => wrap(reapingArgv(argv), true), reaperChannel: true } };
  }

  /**
   * Starts the session's next shell (or puts back one this call could not
   * use), unless the executor is closing. Placed as of now: a spill this
   * call made is readable to the next one.
   */
  private refillPrestart(
    spec: ExecSpec,
    confined: CommandConfinement | undefined,
    unused: PrestartedShell | undefined,
    unusedKey: string,
  ): void {
    if (this.disposing !== undefined) {
      unused?.discard();
      return;
    }
    const key = prestartKeyOf(confined, this.spillsAndWrap(spec, confined).readable);
    if (key !== unusedKey) unused?.discard();
    const start = (): PrestartedShell | undefined => {
      const limits = new LazyLimitGroup(confined, true);
      const { wrapArgv, reaperChannel } = this.spillsAndWrap(spec, confined, limits).placement;
      const shell = PrestartedShell.start({
        shellPath: this.config.shellPath,
        cwd: spec.workdir,
        ...(wrapArgv === undefined ? {} : { wrapArgv }),
        ...(reaperChannel === undefined ? {} : { reaperChannel }),
      });
      this.limitGroups.remember(shell, limits.made);
      return shell;
    };
    this.prestarted.fill(spec.session, key, start, key === unusedKey ? unused : undefined);
  }

  private track(shell: ShellProcess): void {
    this.live.add(shell);
    const forget = (): void => {
      this.live.delete(shell);
    };
    shell.exited.then(forget, forget);
  }

  private checkOpen(): void {
    if (this.disposing !== undefined) throw new Error('shell executor is disposed');
  }
}

/** Two calls with the same key would spawn the same way (confinement and readable paths). */
function prestartKeyOf(confined: CommandConfinement | undefined, readable: readonly string[]): string {
  return confined === undefined ? '' : `${confined.key}\0${readable.join('\0')}`;
}
