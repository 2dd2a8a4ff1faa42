import type { Redactor } from '../../output-filter/redactor.js';
import { randomBytes } from 'node:crypto';
import { readStat } from '../process/process-tree.js';
import type { BashPtyConfig } from '../terminal/bash-pty-config.js';
import type { PtySession, TerminalBackend, TerminalOpenOptions } from '../terminal/terminal-service.js';
import { EXEC_TAG_VAR } from './container-engine.js';
import { containerExecEnv } from './container-env.js';
import { containerShellSpec, startContainerShell, startShellOver } from './container-shell-session.js';
import { openSharedShell } from './shared-shell-open.js';
import { startHeldTerminal } from './held-terminal.js';
import { HeldShellChannel } from './held-shell-channel.js';
import type { MarkerShell } from '../terminal/marker-shell.js';
import type { LiveContainer } from './session-containers.js';
import { shellStatusLaunch, type ShellLaunch } from '../process/shell-status-launcher.js';
import { ShellStartRefused } from '../terminal/shell-channel.js';
import type { SessionContainers } from './session-containers.js';

/** Prompt and history settings that keep the terminal stream to what commands print (as the local backend). */
const SHELL_ENV: Readonly<Record<string, string>> = Object.freeze({
  PS1: '',
  PS2: '',
  PROMPT_COMMAND: '',
  HISTFILE: '/dev/null',
});

/**
 * The `shell` terminal backend in container mode: the persistent bash runs
 * in the owning session's container (the same container its one-shot calls
 * use), started in the workspace with the container env rules. It is a held
 * terminal (held-terminal.ts: `script` in the container, its bytes through
 * FIFOs in the session's shared directory) where the container has `script`
 * and sees that directory, else a TTY exec. In a shared session's container
 * the held terminal is the session's, recorded for every replica
 * (shared-shell-open.ts).
 */
export class ContainerTerminalBackend implements TerminalBackend {
  readonly type = 'shell';
  /** Containers found unable to hold a terminal (no `script`, or the shared directory out of reach): asked once each. */
  private readonly noHeld = new WeakSet<LiveContainer>();

  constructor(
    private readonly containers: SessionContainers,
    private readonly config: BashPtyConfig,
    private readonly isLocalEngine: boolean,
    private readonly redactor?: Redactor,
  ) {}

  async open(options: TerminalOpenOptions): Promise<PtySession> {
    const session = options.session;
    for (let attempt = 0; ; attempt++) {
      const container = await this.containers.acquire(session);
      const tag = randomBytes(8).toString('hex');
      const launch = shellStatusLaunch(this.config.shellPath, options.cwd);
      const env = containerExecEnv(this.config.allowEnv, this.containers.config.env, { dshEnv: options.dshEnv }, SHELL_ENV);
      const cols = options.cols ?? this.config.cols;
      const rows = options.rows ?? this.config.rows;
      const user = this.containers.config.user === undefined ? {} : { user: this.containers.config.user };
      try {
        if (container.shared !== undefined && !this.noHeld.has(container)) {
          // A shared session's shell is the session's, in the sandbox, driven by any replica (shared-shell.ts).
          const shared = await openSharedShell({
            engine: this.containers.engine,
            container,
            launch,
            env,
            cols,
            rows,
            ...user,
            fresh: options.fresh === true,
            localEngine: this.isLocalEngine,
            shellSpec: containerShellSpec(
              {
                cwd: options.cwd,
                scrollbackChars: options.scrollbackChars ?? this.config.scrollbackChars,
                ...(this.redactor === undefined ? {} : { redactor: this.redactor }),
              },
              this.config,
            ),
          });
          if (typeof shared !== 'string') return shared;
          this.noHeld.add(container);
        }
        const held = this.noHeld.has(container) ? undefined : await this.openHeld(container, tag, launch, env, cols, rows, options);
        if (held !== undefined) return held;
        const channel = await this.containers.engine.exec(container.id, {
          argv: launch.argv,
          env: { ...env, [EXEC_TAG_VAR]: tag },
          workdir: '/',
          tty: true,
          stdin: true,
          cols,
          rows,
          ...user,
        });
        const hostPid = this.isLocalEngine ? await this.visiblePid(channel.hostPid()) : undefined;
        return await startContainerShell(
          {
            engine: this.containers.engine,
            containerId: container.id,
            channel,
            tag,
            key: launch.key,
            keyLine: launch.keyLine,
            hostPid,
            cwd: options.cwd,
            scrollbackChars: options.scrollbackChars ?? this.config.scrollbackChars,
            ...(this.redactor === undefined ? {} : { redactor: this.redactor }),
          },
          this.config,
        );
      } catch (error) {
        if (error instanceof ShellStartRefused) throw error;
        const stopped = await this.containers.markIfStopped(container).catch(() => undefined);
        if (stopped && attempt === 0) continue;
        throw new Error(`cannot start the persistent shell in the session container: ${(error as Error).message}`);
      }
    }
  }

  /** The shell on a held terminal; undefined (and the container remembered) when it cannot hold one. */
  private async openHeld(
    container: LiveContainer,
    tag: string,
    launch: ShellLaunch,
    env: Readonly<Record<string, string>>,
    cols: number,
    rows: number,
    options: TerminalOpenOptions,
  ): Promise<MarkerShell | undefined> {
    const terminal = await startHeldTerminal({
      engine: this.containers.engine,
      containerId: container.id,
      sharedDir: container.dir,
      tag,
      argv: launch.argv,
      env,
      cols,
      rows,
      ...(this.containers.config.user === undefined ? {} : { user: this.containers.config.user }),
    });
    if (typeof terminal === 'string') {
      this.noHeld.add(container);
      return undefined;
    }
    const hostPid = this.isLocalEngine ? terminal.hostPid() : undefined;
    const channel = new HeldShellChannel({ engine: this.containers.engine, containerId: container.id, terminal, tag, key: launch.key, keyLine: launch.keyLine, hostPid });
    return startShellOver(
      channel,
      {
        cwd: options.cwd,
        scrollbackChars: options.scrollbackChars ?? this.config.scrollbackChars,
        ...(this.redactor === undefined ? {} : { redactor: this.redactor }),
      },
      this.config,
    );
  }

  /** The engine's pid is usable only when this machine's /proc shows it (same host, same pid namespace). */
  private async visiblePid(pid: Promise<number | undefined>): Promise<number | undefined> {
    const value = await pid;
    return value !== undefined && readStat(value) !== undefined ? value : undefined;
  }
}
