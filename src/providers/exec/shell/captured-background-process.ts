import { messageOf } from '../../../core/describe-value.js';
import { readBackground } from './background-read.js';
import type { OutputCapture } from './output-capture.js';
import type { BackgroundProcess, OutputDelta, ProcessOutcome } from './shell-executor.js';
import type { StopReason } from '../process/shell-exit.js';

/** A running command whose two streams are captured: a local `ShellProcess` or a container exec. */
interface CapturedCommand {
  readonly pid?: number | undefined;
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  /** Processes it left behind, killed when it ended (known once it has). */
  readonly leftoversKilled: number;
  /** Why it was stopped; undefined when it ended on its own. */
  readonly stopReason: StopReason | undefined;
  stop(reason: 'kill'): void;
}

/**
 * The live handle `start` returns, for every executor. Reads consume: each
 * byte is delivered once (stdout first, then stderr under a `[stderr]`
 * line, then the notices; see `readBackground`). A command that never ran
 * (spawn failure, unusable workdir) is a handle too: its outcome carries
 * the error, and its first read shows it instead of any output.
 */
export class CapturedBackgroundProcess implements BackgroundProcess {
  readonly done: Promise<ProcessOutcome>;
  private isFinished = false;
  /** Why the command never ran, not yet delivered by `readOutput`. */
  private unreadError: string | undefined;
  private neverRan = false;
  private leftoversReported = false;

  private constructor(
    private readonly command: CapturedCommand | undefined,
    outcome: Promise<ProcessOutcome>,
  ) {
    this.done = outcome.then(
      (result) => this.settle(result),
      (error: unknown) => this.settle({ exitCode: null, signal: null, error: messageOf(error) }),
    );
  }

  /** `outcome` settles when the command has ended and its output is drained; an `error` in it (or a rejection) means it never ran. */
  static running(command: CapturedCommand, outcome: Promise<ProcessOutcome>): CapturedBackgroundProcess {
    return new CapturedBackgroundProcess(command, outcome);
  }

  /** A command that could not be started: finished at once. */
  static failed(error: Error): CapturedBackgroundProcess {
    const outcome: ProcessOutcome = { exitCode: null, signal: null, error: messageOf(error) };
    const handle = new CapturedBackgroundProcess(undefined, Promise.resolve(outcome));
    handle.settle(outcome);
    return handle;
  }

  get pid(): number | undefined {
    return this.command?.pid;
  }

  get finished(): boolean {
    return this.isFinished;
  }

  readOutput(): OutputDelta {
    const error = this.unreadError;
    this.unreadError = undefined;
    const command = this.command;
    if (command === undefined || this.neverRan) return { text: error ?? '', lost: false, spillPaths: [] };
    // The final read ends with the strays killed when the command ended, like a foreground result.
    const leftovers = this.isFinished && !this.leftoversReported ? command.leftoversKilled : 0;
    if (this.isFinished) this.leftoversReported = true;
    return readBackground(command.stdout, command.stderr, leftovers);
  }

  /** Both streams' retained text, stdout first; nothing is consumed. */
  peekOutput(): string {
    const command = this.command;
    if (command === undefined) return '';
    const stderr = command.stderr.text();
    return command.stdout.text() + (stderr === '' ? '' : `\n[stderr]\n${stderr}`);
  }

  async kill(): Promise<boolean> {
    if (this.isFinished || this.command === undefined) return false;
    this.command.stop('kill');
    await this.done;
    // A command that had ended on its own (its output still draining) keeps its outcome: nothing was killed.
    return this.command.stopReason !== undefined;
  }

  /** Once: a later settle of the same outcome must not make a delivered error readable again. */
  private settle(outcome: ProcessOutcome): ProcessOutcome {
    if (this.isFinished) return outcome;
    this.isFinished = true;
    if (outcome.error !== undefined) {
      this.neverRan = true;
      this.unreadError = outcome.error;
    }
    return outcome;
  }
}
