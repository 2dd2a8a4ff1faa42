import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { PtyExit } from '../terminal/bash-pty-state.js';
import type { ShellChannel } from '../terminal/shell-channel.js';
import type { ContainerEngine } from './container-engine.js';
import { hostPidOf } from './container-pid.js';
import { HELD_FIFOS } from './held-terminal-program.js';
import { LauncherOutput } from './launcher-output.js';

interface SharedHeldSpec {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  /** The terminal's directory, `<session dir>/sh-<tag>`. */
  readonly dir: string;
  readonly tag: string;
  /** The launcher's key (its end record) and pid in the container. */
  readonly key: string;
  readonly containerPid: number;
  /** Whether this machine's /proc may show the launcher (a local engine). */
  readonly localEngine: boolean;
}

/**
 * A held terminal (held-terminal.ts) that any replica may drive, one at a
 * time (shared-shell.ts): the output FIFO is read only between `attach` and
 * `detach`, while this replica holds the shell's lock, so two replicas never
 * split its bytes; what comes while nobody reads waits in the FIFO. The
 * shell's end is the status FIFO's (every replica holds a read end: the
 * status line itself reaches one of them).
 */
export class SharedHeldChannel implements ShellChannel {
  readonly hostPid: number | undefined;
  private readonly launcherOutput: LauncherOutput;
  private readonly input: net.Socket;
  private readonly statusFifo: net.Socket;
  private output?: net.Socket;
  private onData?: (text: string) => void;
  private statusText = '';
  private released = false;

  constructor(private readonly spec: SharedHeldSpec) {
    this.launcherOutput = new LauncherOutput(spec.key);
    this.hostPid = spec.localEngine ? hostPidOf(spec.containerPid, `${spec.dir}/`) : undefined;
    // Read-write: never blocks or breaks for want of a reader.
    this.input = new net.Socket({ fd: fs.openSync(path.join(spec.dir, HELD_FIFOS.input), fs.constants.O_RDWR | fs.constants.O_NONBLOCK), readable: false, writable: true });
    this.input.on('error', () => undefined);
    this.statusFifo = new net.Socket({ fd: fs.openSync(path.join(spec.dir, HELD_FIFOS.status), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), readable: true, writable: false });
    this.statusFifo.on('error', () => undefined);
    this.statusFifo.on('data', (chunk: Buffer) => (this.statusText += chunk.toString('latin1')));
  }

  write(data: string): void {
    this.input.write(data);
  }

  listen(onData: (text: string) => void, onExit: (exit: PtyExit) => void): void {
    this.onData = onData;
    const ended = new Promise<void>((resolve) => {
      this.statusFifo.once('end', resolve);
      this.statusFifo.once('close', resolve);
    });
    void ended.then(() => {
      // Let go of here (another replica drives it now): the shell runs on.
      if (this.released) return;
      const code = this.statusText.trim();
      const { text, exit } = this.launcherOutput.end(/^\d+$/.test(code) ? Number(code) : null);
      this.pass(text);
      onExit(exit);
    });
  }

  /** Starts reading the terminal's output (this replica drives it now). */
  attach(): void {
    if (this.output !== undefined) return;
    const output = new net.Socket({ fd: fs.openSync(path.join(this.spec.dir, HELD_FIFOS.output), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), readable: true, writable: false });
    output.on('error', () => undefined);
    output.on('data', (chunk: Buffer) => this.pass(this.launcherOutput.text(chunk)));
    this.output = output;
  }

  /** Stops reading: what a read already took is passed on, the rest waits in the FIFO for the next driver. */
  detach(): void {
    this.output?.destroy();
    this.output = undefined;
  }

  async kill(): Promise<void> {
    await this.spec.engine.killTagged(this.spec.containerId, this.spec.tag, 'KILL').catch(() => 0);
  }

  /** Lets go of every FIFO; the terminal runs on. */
  release(): void {
    this.released = true;
    this.detach();
    this.input.destroy();
    this.statusFifo.destroy();
  }

  private pass(text: string): void {
    if (text !== '') this.onData?.(text);
  }
}

/** Whether the held terminal in `dir` still runs: its status FIFO has a writer and nothing in it (its status line is written at its end). */
export function heldTerminalRuns(dir: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(path.join(dir, HELD_FIFOS.status), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    fs.readSync(fd, Buffer.alloc(64));
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EAGAIN';
  } finally {
    fs.closeSync(fd);
  }
}
