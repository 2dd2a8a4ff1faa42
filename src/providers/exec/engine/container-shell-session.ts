import type { Redactor } from '../../output-filter/redactor.js';
import type { BashPtyConfig } from '../terminal/bash-pty-config.js';
import type { PtyExit } from '../terminal/bash-pty-state.js';
import { MarkerShell, type MarkerShellSpec } from '../terminal/marker-shell.js';
import type { ShellChannel } from '../terminal/shell-channel.js';
import type { ContainerEngine, ExecChannel } from './container-engine.js';
import { workdirMessage, type WorkdirProblem } from '../process/workdir-check.js';
import { LauncherOutput } from './launcher-output.js';

interface ContainerShellSpawn {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  readonly channel: ExecChannel;
  /** The tag every process of this shell carries (to kill its tree). */
  readonly tag: string;
  /** The key of the launcher's end record (`shellStatusLaunch`). */
  readonly key: string;
  /** Hands the launcher its key: written on the terminal first. */
  readonly keyLine: string;
  /** The shell's pid on this machine when the engine is local; undefined turns stdin-wait detection off. */
  readonly hostPid: number | undefined;
  /** Where the shell starts (see `containerShellArgv`). */
  readonly cwd: string;
  readonly scrollbackChars: number;
  /** Secrets kept out of the shell's output. */
  readonly redactor?: Redactor;
}

/**
 * The persistent shell inside a session's container: one long-lived
 * `bash -i` on a TTY exec (under its launcher), driven by the same `MarkerShell` as the local
 * PTY. Stdin-wait detection reads the shell's process tree through the
 * host's /proc, so it works only when the engine runs on this machine;
 * elsewhere a command waiting for input runs until its timeout.
 */
export function startContainerShell(spawn: ContainerShellSpawn, config: BashPtyConfig): Promise<MarkerShell> {
  return startShellOver(new ExecShellChannel(spawn), spawn, config);
}

/** `MarkerShell` over a container shell's channel (a TTY exec, a held terminal), named and explained alike. */
export function startShellOver(
  channel: ShellChannel,
  spawn: Pick<ContainerShellSpawn, 'cwd' | 'scrollbackChars' | 'redactor'>,
  config: BashPtyConfig,
): Promise<MarkerShell> {
  return MarkerShell.start(channel, containerShellSpec(spawn, config));
}

/** How `MarkerShell` names and explains a container's shell. */
export function containerShellSpec(spawn: Pick<ContainerShellSpawn, 'cwd' | 'scrollbackChars' | 'redactor'>, config: BashPtyConfig): MarkerShellSpec {
  return {
    scrollbackChars: spawn.scrollbackChars,
    ...(spawn.redactor ? { redactor: spawn.redactor } : {}),
    identity: {
      name: 'bash in the container',
      hint: 'check that the image has bash',
      explainExit: (exit) => cwdFailure(exit.exitCode, spawn.cwd),
    },
    config,
  };
}

/** The statuses of the launcher's `cd` failure (process/shell-status-launcher.ts). */
const CWD_EXITS: Readonly<Record<number, WorkdirProblem>> = { 125: 'missing', 124: 'notdir', 123: 'denied' };

/** In the local PTY backend's words (`checkWorkdir`). */
function cwdFailure(exitCode: number | null, cwd: string): string | undefined {
  const problem = exitCode === null ? undefined : CWD_EXITS[exitCode];
  return problem === undefined ? undefined : workdirMessage(problem, cwd, 'working directory');
}

/**
 * A TTY exec: bytes over the engine's attach stream (the launcher's end
 * record taken out), processes killed by their tag inside the container.
 */
class ExecShellChannel implements ShellChannel {
  private readonly output: LauncherOutput;

  constructor(private readonly spawn: ContainerShellSpawn) {
    this.output = new LauncherOutput(spawn.key);
    spawn.channel.write(spawn.keyLine);
  }

  get hostPid(): number | undefined {
    return this.spawn.hostPid;
  }

  write(data: string): void {
    this.spawn.channel.write(data);
  }

  listen(onData: (text: string) => void, onExit: (exit: PtyExit) => void): void {
    const pass = (text: string): void => {
      if (text !== '') onData(text);
    };
    this.spawn.channel.stdout.on('data', (chunk: Buffer) => pass(this.output.text(chunk)));
    void this.spawn.channel.exited.then(({ exitCode }) => {
      const { text, exit } = this.output.end(exitCode);
      pass(text);
      onExit(exit);
    });
  }

  async kill(): Promise<void> {
    // The tag reaches every process of the shell, alive or left behind, in one pass.
    await this.spawn.engine.killTagged(this.spawn.containerId, this.spawn.tag, 'KILL').catch(() => 0);
  }

  release(): void {
    this.spawn.channel.detach();
  }
}
