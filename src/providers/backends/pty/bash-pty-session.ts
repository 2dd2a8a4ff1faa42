import type { IPty } from 'node-pty';
import type { Redactor } from '../../output-filter/redactor.js';
import { ExecStatusReader, signalName as signalOfNumber } from '../../exec/process/exec-status.js';
import { killTagged, PROCESS_TAG_VARIABLE } from '../../exec/process/leftover-reaper.js';
import { LAUNCHER_MARK, shellStatusLaunch, type ShellLaunch } from '../../exec/process/shell-status-launcher.js';
import { withoutStrayDescriptors } from '../../exec/process/stray-descriptors.js';
import type { BashPtyConfig } from '../../exec/terminal/bash-pty-config.js';
import { signalName, type PtyExit } from '../../exec/terminal/bash-pty-state.js';
import { MarkerShell } from '../../exec/terminal/marker-shell.js';
import { killShellTree } from '../../exec/process/process-tree.js';
import { requirePty } from './pty-loader.js';
import { readLastOutputBeforeDestroy } from './pty-last-output.js';
import { watchForgotten } from './forgotten-shells.js';
import type { ShellChannel } from '../../exec/terminal/shell-channel.js';

interface BashPtySpawn {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly scrollbackChars: number;
  readonly cols: number;
  readonly rows: number;
  /** Rewrites the shell's argv (a sandbox wrapper); the PTY stays its terminal. */
  readonly wrapArgv?: (argv: string[]) => string[];
  /** Secrets to keep out of the output. */
  readonly redactor?: Redactor;
}

/** Spawns `bash -i` on a node-pty PTY and resolves once it has run the setup line; kills it and throws on failure. */
export async function startBashPty(spec: BashPtySpawn, config: BashPtyConfig): Promise<MarkerShell> {
  // A wrapper (bwrap) passes the shell's death by a signal on as 128 + n: its launcher says which (shell-status-launcher.ts).
  const launch = spec.wrapArgv ? shellStatusLaunch(config.shellPath, spec.cwd) : undefined;
  const argv = launch?.argv ?? [config.shellPath, '--noprofile', '--norc', '--noediting', '-i'];
  // node-pty passes every inheritable descriptor on: an embedding host's stop before bwrap and the shell.
  const [file, ...args] = withoutStrayDescriptors(spec.wrapArgv ? spec.wrapArgv(argv) : argv, config.shellPath);
  const { spawn } = await requirePty();
  const pty = spawn(file!, args, { cwd: spec.cwd, env: spec.env, cols: spec.cols, rows: spec.rows });
  // The PTY's read stream need not hold the process: the shell's life does, until it is closed (forgotten-shells.ts).
  (pty as IPty & { _socket?: { unref?: () => void } })._socket?.unref?.();
  readLastOutputBeforeDestroy(pty);
  const shell = await MarkerShell.start(new PtyChannel(pty, spec.env[PROCESS_TAG_VARIABLE], launch), {
    scrollbackChars: spec.scrollbackChars,
    ...(spec.redactor ? { redactor: spec.redactor } : {}),
    identity: { name: 'bash', hint: `check that "${config.shellPath}" runs and the directory ${spec.cwd} is usable` },
    config,
  });
  const unwatch = watchForgotten({ label: `bash (pid ${pty.pid})`, busy: shell.sending, close: () => shell.close() });
  pty.onExit(unwatch);
  return shell;
}

/** A local PTY: the shell's tree is found through /proc, its escaped daemons through its process tag. */
class PtyChannel implements ShellChannel {
  private readonly status: ExecStatusReader | undefined;

  constructor(
    private readonly pty: IPty,
    private readonly tag: string | undefined,
    launch: ShellLaunch | undefined,
  ) {
    if (launch === undefined) return;
    this.status = new ExecStatusReader(launch.key, LAUNCHER_MARK);
    pty.write(launch.keyLine);
  }

  get hostPid(): number {
    return this.pty.pid;
  }

  write(data: string): void {
    this.pty.write(data);
  }

  listen(onData: (text: string) => void, onExit: (exit: PtyExit) => void): void {
    const status = this.status;
    if (status === undefined) {
      this.pty.onData(onData);
      this.pty.onExit(({ exitCode, signal }) => onExit(signal ? { exitCode: null, signal: signalName(signal) } : { exitCode, signal: null }));
      return;
    }
    // node-pty decodes UTF-8 already; the records are ASCII, so the round trip changes no text.
    const pass = (bytes: Buffer): void => {
      if (bytes.length > 0) onData(bytes.toString('utf8'));
    };
    this.pty.onData((text) => pass(status.push(Buffer.from(text, 'utf8'))));
    this.pty.onExit(({ exitCode, signal }) => {
      pass(status.end());
      if (signal) return onExit({ exitCode: null, signal: signalName(signal) });
      const killedBy = status.signal === undefined || exitCode !== 128 + status.signal ? undefined : signalOfNumber(status.signal);
      onExit(killedBy === undefined ? { exitCode, signal: null } : { exitCode: null, signal: killedBy });
    });
  }

  async kill(shellAlive: boolean): Promise<void> {
    await killShellTree(this.pty.pid, shellAlive);
    // Processes that left the shell's tree (`setsid`, double fork) still carry its tag.
    if (this.tag !== undefined) killTagged(this.tag);
  }
}
