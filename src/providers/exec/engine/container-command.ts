import type { Redactor } from '../../output-filter/redactor.js';
import { randomBytes } from 'node:crypto';
import { OutputCapture } from '../shell/output-capture.js';
import type { ExecSpec, ExecutorConfig, ProcessOutcome } from '../shell/shell-executor.js';
import type { ShellExit, StopReason } from '../shell/shell-process.js';
import type { SpillDirectory } from '../shell/spill-directory.js';
import { EXEC_TAG_VAR, type ContainerEngine, type ExecChannel } from './container-engine.js';
import { workdirMessage } from '../process/workdir-check.js';
import { WORKDIR_STATUS, WRAPPER_TAG_SUFFIX, wrapperInput, type WrapperInput } from './container-exec-wrapper.js';
import { ExecStatusReader, signalName } from '../process/exec-status.js';
import type { ChannelExit, SessionChannel } from './session-channel.js';

/** How often a stopped exec that has not ended is killed again. */
const KILL_RETRY_MS = 500;
/** KILL retries that spare the wrapper before it is killed too. */
const WRAPPER_SPARED_RETRIES = 2;
/**
 * KILL retries after which an exec that still has not ended is cut from the
 * host's side: an engine may keep an exec's stream open after its processes
 * are gone, and the call must still end within its timeout plus the grace
 * and these retries (issue 34 item 6).
 */
const DETACH_RETRIES = 10;


interface ContainerCommandOptions {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  readonly spec: ExecSpec;
  /** The exec's environment (already built; the tag is added here). */
  readonly env: Readonly<Record<string, string>>;
  readonly config: ExecutorConfig;
  readonly spills: SpillDirectory;
  readonly user?: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly onOutput?: (chunk: Buffer, stream: 0 | 1) => void;
  /** Secrets kept out of the captured text and the spill files. */
  readonly redactor?: Redactor;
  /** The session's channel, when it is ready: the command starts through it instead of an engine exec. */
  readonly channel?: SessionChannel;
}

/**
 * One `bash -c` exec in a session's container with bounded capture of both
 * streams (the shared `OutputCapture`, spilling into the session's directory
 * that the container sees at the same path). Stopping signals the command's
 * whole process tree inside the container: TERM, then KILL after the grace.
 */
export class ContainerCommand {
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  readonly exited: Promise<ShellExit>;
  private reason: StopReason | undefined;
  private done = false;
  private lostReason: string | undefined;
  private timers: NodeJS.Timeout[] = [];
  private readonly onAbort = (): void => this.stop('abort');
  private readonly status: ExecStatusReader;

  private constructor(
    private readonly options: ContainerCommandOptions,
    private readonly channel: ExecChannel,
    private readonly tag: string,
    input: WrapperInput,
    stdinSent: boolean,
  ) {
    this.status = new ExecStatusReader(input.key);
    const limits = { maxOutputBytes: options.config.maxOutputBytes, maxSpillBytes: options.config.maxSpillBytes };
    this.stdout = new OutputCapture(limits, options.spills, 'stdout', options.redactor);
    this.stderr = new OutputCapture(limits, options.spills, 'stderr', options.redactor);
    channel.stdout.on('data', (chunk: Buffer) => {
      this.stdout.write(chunk);
      options.onOutput?.(chunk, 0);
    });
    channel.stderr.on('data', (chunk: Buffer) => {
      const output = this.status.push(chunk);
      if (output.length === 0) return;
      this.stderr.write(output);
      options.onOutput?.(output, 1);
    });
    if (!stdinSent) channel.write(input.stdin);
    this.exited = channel.exited.then(({ exitCode, lost }: ChannelExit) => {
      this.lostReason = lost;
      this.done = true;
      for (const timer of this.timers) clearTimeout(timer);
      options.signal?.removeEventListener('abort', this.onAbort);
      const held = this.status.end();
      if (held.length > 0) this.stderr.write(held);
      this.stdout.close();
      this.stderr.close();
      return classify(exitCode, this.reason, this.status);
    });
    if (options.timeoutMs !== undefined) this.timers.push(setTimeout(() => this.stop('timeout'), options.timeoutMs));
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Starts the exec; rejects (with the engine's cause) when it could not start. */
  static async start(options: ContainerCommandOptions): Promise<ContainerCommand> {
    const tag = randomBytes(8).toString('hex');
    const { spec } = options;
    const input = wrapperInput(options.config.shellPath, spec.command, spec.workdir, spec.stdin);
    // The wrapper hands the bare tag to the command; its own stays out of reach of the command's stop.
    const env = { ...options.env, [EXEC_TAG_VAR]: tag + WRAPPER_TAG_SUFFIX };
    const held = await options.channel?.run(input.argv, env, input.stdin);
    if (held !== undefined) return new ContainerCommand(options, held, tag, input, true);
    const channel = await options.engine.exec(options.containerId, {
      argv: input.argv,
      env,
      workdir: '/',
      tty: false,
      // The wrapper's key and any long command arrive on stdin, before the command's own stdin bytes.
      stdin: true,
      ...(options.user === undefined ? {} : { user: options.user }),
    });
    return new ContainerCommand(options, channel, tag, input, false);
  }

  /** Set when the session's channel broke under the command (which was then killed): the call failed, whatever its status says. */
  get lost(): string | undefined {
    return this.lostReason;
  }

  /** Once exited: why the command could not start in its workdir (it never ran), else undefined. */
  workdirFailure(exit: ShellExit): string | undefined {
    const problem = this.status.workdirProblem;
    // Only the keyed record says so: a command that prints a look-alike and exits 125 just failed.
    if (exit.exitCode !== WORKDIR_STATUS || problem === undefined) return undefined;
    return workdirMessage(problem, this.options.spec.workdir);
  }

  /** How a background command ended; a workdir it could not enter is an `error` (it never ran). */
  outcome(): Promise<ProcessOutcome> {
    return this.exited.then((exit) => {
      if (this.lostReason !== undefined) return { exitCode: null, signal: null, error: this.lostReason };
      const unusable = this.workdirFailure(exit);
      return unusable === undefined ? { exitCode: exit.exitCode, signal: exit.signal } : { exitCode: null, signal: null, error: unusable };
    });
  }

  /**
   * Processes still alive when the command ended, killed then (known once it
   * exited). After a stop of ours the tree was being killed already: as the
   * local executor, that is no leftover to report.
   */
  get leftoversKilled(): number {
    return this.reason === undefined ? this.status.leftovers : 0;
  }

  get stopReason(): StopReason | undefined {
    return this.reason;
  }

  get finished(): boolean {
    return this.done;
  }

  /**
   * TERM to the command's whole tree, KILL after the grace, and KILL again
   * until the exec has ended: on a loaded engine the exec's processes may not
   * have started when the first signals went out. The wrapper is spared so it
   * can say how the command ended, unless it is still there at the second
   * retry (stopped by the command, say). The first reason wins.
   */
  stop(reason: StopReason): void {
    if (this.done || this.reason !== undefined) return;
    this.reason = reason;
    void this.signalTree(this.tag, 'TERM');
    let retries = 0;
    const kill = (): void => {
      if (this.done) return;
      void this.signalTree(this.tag, 'KILL');
      if (retries >= WRAPPER_SPARED_RETRIES) void this.signalTree(this.tag + WRAPPER_TAG_SUFFIX, 'KILL');
      if (retries++ >= DETACH_RETRIES) this.channel.detach();
      this.timers.push(setTimeout(kill, KILL_RETRY_MS));
    };
    this.timers.push(setTimeout(kill, this.options.config.graceMs));
  }

  private async signalTree(tag: string, signal: 'TERM' | 'KILL'): Promise<void> {
    try {
      await this.options.engine.killTagged(this.options.containerId, tag, signal);
    } catch {
      // The container is gone: so is the tree.
    }
  }
}

/**
 * The wrapper's records say how the command ended. Without them (the wrapper
 * itself was killed), an exec status of `128 + n` is that signal only when
 * a stop of ours explains it.
 */
function classify(exitCode: number | null, reason: StopReason | undefined, status: ExecStatusReader): ShellExit {
  if (status.complete) {
    const name = status.signal === undefined ? undefined : signalName(status.signal);
    return name === undefined ? { exitCode, signal: null, reason } : { exitCode: null, signal: name, reason };
  }
  if (reason !== undefined && exitCode !== null && exitCode > 128) {
    const name = signalName(exitCode - 128);
    if (name) return { exitCode: null, signal: name, reason };
  }
  return { exitCode, signal: null, reason };
}
