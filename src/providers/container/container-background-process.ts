import { messageOf } from '../../core/describe-value.js';
import { readBackground } from '../shell/background-read.js';
import type { BackgroundProcess, OutputDelta, ProcessOutcome } from '../shell/shell-executor.js';
import type { ContainerCommand } from './container-command.js';

/**
 * The handle `ContainerShellExecutor.start` returns: the local background
 * handle's contract (consuming reads, stdout then a `[stderr]` section,
 * `kill` stops the command's tree inside the container) over a container exec.
 */
export class ContainerBackgroundProcess implements BackgroundProcess {
  readonly pid = undefined;
  readonly done: Promise<ProcessOutcome>;
  private isFinished = false;
  private unreadError: string | undefined;
  private startFailed = false;
  private leftoversReported = false;

  private constructor(
    private readonly command: ContainerCommand | undefined,
    outcome: Promise<ProcessOutcome>,
  ) {
    this.done = outcome.then((result) => {
      this.isFinished = true;
      return result;
    });
  }

  static running(command: ContainerCommand): ContainerBackgroundProcess {
    let handle!: ContainerBackgroundProcess;
    const outcome = command.exited.then((exit): ProcessOutcome => {
      const unusable = command.workdirFailure(exit);
      if (unusable === undefined) return { exitCode: exit.exitCode, signal: exit.signal };
      // The command never ran: its first read shows why instead of the wrapper's report.
      handle.unreadError = unusable;
      handle.startFailed = true;
      return { exitCode: null, signal: null, error: unusable };
    });
    handle = new ContainerBackgroundProcess(command, outcome);
    return handle;
  }

  /** A command that never started: finished at once, its first read and outcome carry the error. */
  static failed(error: Error): ContainerBackgroundProcess {
    const message = messageOf(error);
    const handle = new ContainerBackgroundProcess(undefined, Promise.resolve({ exitCode: null, signal: null, error: message }));
    handle.isFinished = true;
    handle.unreadError = message;
    return handle;
  }

  get finished(): boolean {
    return this.isFinished;
  }

  readOutput(): OutputDelta {
    const error = this.unreadError;
    this.unreadError = undefined;
    const command = this.command;
    if (command === undefined || this.startFailed) return { text: error ?? '', lost: false, spillPaths: [] };
    // The final read ends with the strays killed when the command ended, like a foreground result.
    const leftovers = this.isFinished && !this.leftoversReported ? command.leftoversKilled : 0;
    if (this.isFinished) this.leftoversReported = true;
    return readBackground(command.stdout, command.stderr, leftovers);
  }

  async kill(): Promise<boolean> {
    if (this.isFinished || this.command === undefined) return false;
    this.command.stop('kill');
    await this.done;
    return this.command.stopReason !== undefined;
  }
}
