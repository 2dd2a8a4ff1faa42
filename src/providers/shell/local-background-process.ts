import { joinStreams, leftoverNotice, type BackgroundProcess, type OutputDelta, type ProcessOutcome } from './shell-executor.js';
import type { ShellExit, ShellProcess } from './shell-process.js';
import { messageOf } from '../../core/describe-value.js';
import { collapsedNotice } from '../output-filter/line-collapse.js';

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
    const out = process.stdout.readNew();
    const err = process.stderr.readNew();
    const collapsed = out.collapsed + err.collapsed;
    let text = joinStreams(out.text, err.text);
    // The notices end the new output, before the runtime's own lines (loss, status).
    if (collapsed > 0) text += `${text === '' || text.endsWith('\n') ? '' : '\n'}${collapsedNotice(collapsed)}\n`;
    // The final read ends with the strays killed when the command ended, like a foreground result.
    if (this.isFinished && !this.leftoversReported && process.leftoversKilled > 0) {
      this.leftoversReported = true;
      text += `${text === '' || text.endsWith('\n') ? '' : '\n'}${leftoverNotice(process.leftoversKilled)}\n`;
    }
    // Only the streams that lost bytes matter: their spill files are where the missing part is.
    const spillPaths: string[] = [];
    if (out.lost && process.stdout.spillPath !== undefined) spillPaths.push(process.stdout.spillPath);
    if (err.lost && process.stderr.spillPath !== undefined) spillPaths.push(process.stderr.spillPath);
    return { text, lost: out.lost || err.lost, spillPaths };
  }

  async kill(): Promise<boolean> {
    if (this.isFinished || this.process === undefined) return false;
    this.process.stop('kill');
    await this.done;
    // A leader that had exited on its own (its pipes still draining) keeps its outcome: nothing was killed.
    return this.process.stopReason !== undefined;
  }
}
