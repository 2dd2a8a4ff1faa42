import type { Redactor } from '../../output-filter/redactor.js';
import { finishedResult } from '../shell/run-results.js';
import { ProgressReporter } from '../shell/progress-reporter.js';
import {
  ExecSpec,
  type BackgroundProcess,
  type ExecRequest,
  type ExecutorConfig,
  type RunOptions,
  type RunResult,
  type ShellExecutor,
} from '../shell/shell-executor.js';
import { CapturedBackgroundProcess } from '../shell/captured-background-process.js';
import { ContainerCommand } from './container-command.js';
import { containerExecEnv } from './container-env.js';
import { DetachedBackgroundProcess } from './detached-background-process.js';
import { launchDetached } from './detached-task.js';
import type { LiveContainer, SessionContainers } from './session-containers.js';
import type { SessionChannel } from './session-channel.js';
import { monotonicMs } from '../../../core/monotonic-ms.js';

/** How long an unexplained kill waits for the engine to report its container stopped. */
const STOP_SETTLE_MS = 500;

/** What the container composition's planner says when a model asks to widen the sandbox of a container. */
export const CONTAINER_ESCALATION_REFUSAL =
  'sandbox escalation is refused in container mode: the session container is the sandbox, and its mounts are fixed when it starts';

/**
 * Runs each command as a fresh `bash -c` exec in the calling session's
 * container (see `SessionContainers`), with the local executor's contract:
 * the same capture, spill files (in a directory the container sees at the
 * same path), timeout and abort (the command's whole process tree inside the
 * container is killed), and result shape. A command cut short because the
 * container itself stopped rejects with the container's reason.
 */
export class ContainerShellExecutor implements ShellExecutor {
  private readonly live = new Set<ContainerCommand>();
  private disposing?: Promise<void>;

  constructor(
    private readonly containers: SessionContainers,
    readonly config: ExecutorConfig,
    private readonly redactor?: Redactor,
  ) {}

  checkRequest(request: ExecRequest): ExecSpec {
    return ExecSpec.check(request, this.config);
  }

  async run(given: ExecSpec, options: RunOptions = {}): Promise<RunResult> {
    this.checkOpen();
    const spec = ExecSpec.of(given, this.config);
    const { signal, onProgress } = options;
    if (signal?.aborted) throw abortedBeforeStart(signal);
    const { timeoutMs } = spec;
    const progress = onProgress === undefined ? undefined : new ProgressReporter(onProgress);
    const startedAt = monotonicMs();
    const { command, container } = await this.launch(spec, {
      timeoutMs,
      ...(signal === undefined ? {} : { signal }),
      ...(progress === undefined ? {} : { onOutput: (chunk: Buffer, stream: 0 | 1) => progress.feed(chunk, stream) }),
    });
    let exit;
    try {
      exit = await command.exited;
    } finally {
      progress?.stop();
    }
    const unusable = command.workdirFailure(exit);
    if (unusable !== undefined) throw new Error(unusable);
    // A status the engine could not tell, a kill, or the runtime's own 126: was it the container that went away?
    if (exit.signal !== null || exit.exitCode === null || exit.exitCode >= 126) {
      // Our own stop (timeout, abort) explains a kill; anything else may be the container dying.
      const state = await this.containers.markIfStopped(container, exit.reason === undefined ? STOP_SETTLE_MS : 0);
      if (state) throw new Error(`the session container stopped while the command ran (${state.reason ?? 'unknown reason'})`);
    }
    if (command.lost !== undefined) throw new Error(command.lost);
    const result = finishedResult(command.stdout, command.stderr, exit, timeoutMs, startedAt);
    return command.leftoversKilled === 0 ? result : { ...result, leftoversKilled: command.leftoversKilled };
  }

  /** A failure to reach the engine or start the exec settles the handle with the error (the task shows it). */
  async start(given: ExecSpec): Promise<BackgroundProcess> {
    this.checkOpen();
    const spec = ExecSpec.of(given, this.config);
    try {
      // A shared session's task belongs to its sandbox: it outlives this server (docs/shared-sessions.md#tasks).
      const container = await this.containers.acquire(spec.session);
      if (container.shared !== undefined) return await this.startDetached(spec, container);
      const { command } = await this.launch(spec, {});
      return CapturedBackgroundProcess.running(command, command.outcome());
    } catch (error) {
      return CapturedBackgroundProcess.failed(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private async startDetached(spec: ExecSpec, container: LiveContainer): Promise<BackgroundProcess> {
    const run = await launchDetached({
      engine: this.containers.engine,
      containerId: container.id,
      sessionDir: container.dir,
      shellPath: this.config.shellPath,
      command: spec.command,
      workdir: spec.workdir,
      env: containerExecEnv(this.config.allowEnv, this.containers.config.env, spec),
      ...(this.containers.config.user === undefined ? {} : { user: this.containers.config.user }),
      limits: this.config,
    });
    return new DetachedBackgroundProcess(run, this.containers.engine, this.config, this.redactor);
  }

  /** Stops every command still running (their containers go with their sessions). */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      const running = [...this.live];
      for (const command of running) command.stop('dispose');
      await Promise.allSettled(running.map((command) => command.exited));
    })();
    return this.disposing;
  }

  /** Starts the exec; a container found stopped is replaced once (the session gets the restart notice). */
  private async launch(
    spec: ExecSpec,
    extra: { timeoutMs?: number; signal?: AbortSignal; onOutput?: (chunk: Buffer, stream: 0 | 1) => void },
  ): Promise<{ command: ContainerCommand; container: LiveContainer }> {
    for (let attempt = 0; ; attempt++) {
      const container = await this.containers.acquire(spec.session);
      this.checkOpen();
      try {
        const command = await ContainerCommand.start({
          engine: this.containers.engine,
          containerId: container.id,
          spec,
          env: containerExecEnv(this.config.allowEnv, this.containers.config.env, spec),
          config: this.config,
          spills: container.spills,
          ...channelOf(container),
          ...(this.redactor === undefined ? {} : { redactor: this.redactor }),
          ...(this.containers.config.user === undefined ? {} : { user: this.containers.config.user }),
          ...extra,
        });
        this.track(command);
        return { command, container };
      } catch (error) {
        const stopped = await this.containers.markIfStopped(container).catch(() => undefined);
        if (stopped && attempt === 0) continue;
        throw new Error(`cannot run the command in the session container: ${(error as Error).message}`);
      }
    }
  }

  private track(command: ContainerCommand): void {
    this.live.add(command);
    const forget = (): void => void this.live.delete(command);
    command.exited.then(forget, forget);
  }

  private checkOpen(): void {
    if (this.disposing !== undefined) throw new Error('shell executor is disposed');
  }
}

/** The container's channel when it is ready (asking starts it for the calls to come). */
function channelOf(container: LiveContainer): { channel?: SessionChannel } {
  const channel = container.channel?.current();
  return channel === undefined ? {} : { channel };
}

function abortedBeforeStart(signal: AbortSignal): Error {
  const error = new Error('command aborted before it started', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}
