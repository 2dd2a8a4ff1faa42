import { StringDecoder } from 'node:string_decoder';
import type { PtyExit } from '../terminal/bash-pty-state.js';
import { ExecStatusReader, signalName } from '../process/exec-status.js';
import { LAUNCHER_MARK } from '../process/shell-status-launcher.js';

/**
 * The output of a shell under its launcher (`shellStatusLaunch`), whatever
 * carries it (a TTY exec, a held terminal): text decoded as it comes with the
 * launcher's end record taken out, and the shell's exit as that record tells
 * it (a death by signal), else as the carrier's status.
 */
export class LauncherOutput {
  private readonly decoder = new StringDecoder('utf8');
  private readonly status: ExecStatusReader;

  constructor(key: string) {
    this.status = new ExecStatusReader(key, LAUNCHER_MARK);
  }

  /** The text of `chunk` that can be shown now ('' while a possible record is held back). */
  text(chunk: Buffer): string {
    return this.decoder.write(this.status.push(chunk));
  }

  /** What was held back, and the exit: the carrier's `exitCode` unless the record named a signal (without it, the launcher was killed too). */
  end(exitCode: number | null): { readonly text: string; readonly exit: PtyExit } {
    const text = this.decoder.write(this.status.end());
    const signal = this.status.signal === undefined ? undefined : signalName(this.status.signal);
    return { text, exit: signal === undefined ? { exitCode, signal: null } : { exitCode: null, signal } };
  }
}
