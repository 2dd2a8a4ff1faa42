import type { PtyExit } from '../terminal/bash-pty-state.js';
import type { ShellChannel } from '../terminal/shell-channel.js';
import type { ContainerEngine } from './container-engine.js';
import type { HeldTerminal } from './held-terminal.js';
import { LauncherOutput } from './launcher-output.js';

interface HeldShellSpawn {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  readonly terminal: HeldTerminal;
  /** The tag every process of this shell carries (to kill its tree). */
  readonly tag: string;
  /** The key of the launcher's end record (`shellStatusLaunch`). */
  readonly key: string;
  /** Hands the launcher its key: written on the terminal first. */
  readonly keyLine: string;
  /** The launcher's pid on this machine when the engine is local; undefined turns stdin-wait detection off. */
  readonly hostPid: number | undefined;
}

/**
 * A held terminal (held-terminal.ts) as a `ShellChannel`: bytes through its
 * FIFOs, the launcher's end record taken out of the output, processes killed
 * by their tag inside the container; the exit as a TTY exec's would read
 * (`ExecShellChannel`): script's status stands for the exec's.
 */
export class HeldShellChannel implements ShellChannel {
  private readonly output: LauncherOutput;

  constructor(private readonly spawn: HeldShellSpawn) {
    this.output = new LauncherOutput(spawn.key);
    spawn.terminal.write(spawn.keyLine);
  }

  get hostPid(): number | undefined {
    return this.spawn.hostPid;
  }

  write(data: string): void {
    this.spawn.terminal.write(data);
  }

  listen(onData: (text: string) => void, onExit: (exit: PtyExit) => void): void {
    const pass = (text: string): void => {
      if (text !== '') onData(text);
    };
    const terminal = this.spawn.terminal;
    terminal.output.on('data', (chunk: Buffer) => pass(this.output.text(chunk)));
    const outputEnded = new Promise<void>((resolve) => {
      terminal.output.once('end', resolve);
      terminal.output.once('close', resolve);
    });
    void Promise.all([outputEnded, terminal.statusEnded]).then(() => {
      // script's status stands for the exec's.
      const { text, exit } = this.output.end(terminal.exitCode());
      pass(text);
      onExit(exit);
    });
  }

  async kill(): Promise<void> {
    // The tag reaches every process of the shell, alive or left behind, in one pass.
    await this.spawn.engine.killTagged(this.spawn.containerId, this.spawn.tag, 'KILL').catch(() => 0);
  }

  release(): void {
    this.spawn.terminal.close();
  }
}
