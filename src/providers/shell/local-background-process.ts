import type { BackgroundProcess, OutputDelta, ProcessOutcome } from './shell-executor.js';
import { readBackground } from './background-read.js';
import type { ShellExit, ShellProcess } from './shell-process.js';
import { messageOf } from '../../core/describe-value.js';

/**
 * The live handle `LocalShellExecutor.start` returns. Reads consume: each
 * byte is delivered once (stdout first, then stderr under a `[stderr]` line).
 * A process that never started is a handle too: finished at once, its
 * outcome and first read carry the error text.
 */
export class LocalBackgroundProcess implements BackgroundProcess {
  readonly done: Promise<ProcessOutcome>;
  private isFinished = false;
  /** Spawn failure text not yet delivered by `readOutput`. */
  private unreadError: string | undefined;
  private leftoversReported = false;

  private constructor(
    private readonly process: ShellProcess | undefined,
    exited: Promise<ShellExit>,
  ) {
    this.done = exited.then(
      (exit) => {
        this.isFinished = true;
        return { exitCode: exit.exitCode, signal: exit.signal };
      },
      (error: unknown) => {
        this.isFinished = true;
        const message = messageOf(error);
        this.unreadError = message;
        return { exitCode: null, signal: null, error: message };
      },
    );
  }

  static running(process: ShellProcess): LocalBackgroundProcess {
    return new LocalBackgroundProcess(process, process.exited);
  }

  /** A handle for a process that could not be started (e.g. missing workdir). */
  static failed(error: Error): LocalBackgroundProcess {
    const handle = new LocalBackgroundProcess(undefined, Promise.reject(error));
    // Finished at once; the error text becomes readable when `done` settles (set there only, so it is read once).
    handle.isFinished = true;
    return handle;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  get finished(): boolean {
    return this.isFinished;
  }

  readOutput(): OutputDelta {
    const error = this.unreadError;
    if (error !== undefined) this.unreadError = undefined;
    const process = this.process;
    if (process === undefined || process.pid === undefined) {
      return { text: error ?? '', lost: false, spillPaths: [] };
    }
    // The final read ends with the strays killed when the command ended, like a foreground result.
    const leftovers = this.isFinished && !this.leftoversReported ? process.leftoversKilled : 0;
    if (this.isFinished) this.leftoversReported = true;
    return readBackground(process.stdout, process.stderr, leftovers);
  }

  async kill(): Promise<boolean> {
    if (this.isFinished || this.process === undefined) return false;
    this.process.stop('kill');
    await this.done;
    // A leader that had exited on its own (its pipes still draining) keeps its outcome: nothing was killed.
    return this.process.stopReason !== undefined;
  }
}
