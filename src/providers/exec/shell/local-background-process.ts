import { CapturedBackgroundProcess } from './captured-background-process.js';
import type { ShellProcess } from './shell-process.js';

/** The background handle of a local command (`exited` rejects only when it could not be started). */
export function localBackground(shell: ShellProcess): CapturedBackgroundProcess {
  return CapturedBackgroundProcess.running(
    shell,
    shell.exited.then(({ exitCode, signal }) => ({ exitCode, signal })),
  );
}
