import { inject, injectable, optional } from 'inversify';
import { Redactor } from '../../output-filter/redactor.js';
import { FallbackPlanner } from '../../policy/planner/fallback-planner.js';
import { buildChildEnv, dropShellStartupVars } from '../../exec/process/child-env.js';
import { newProcessTag, PROCESS_TAG_VARIABLE } from '../../exec/process/leftover-reaper.js';
import { ensureReaperWatchdog } from '../../exec/process/reaper-watchdog.js';
import { checkWorkdir } from '../../exec/process/workdir-check.js';
import { BashPtyConfig, resolveBashPtyConfig } from '../../exec/terminal/bash-pty-config.js';
import { startBashPty } from './bash-pty-session.js';
import { ConfinedPtySession } from './confined-pty-session.js';
import type { PtySession, TerminalBackend, TerminalOpenOptions } from '../../exec/terminal/terminal-service.js';

/** Prompt and history settings that keep the PTY stream to what commands print. */
const SHELL_ENV: Readonly<Record<string, string>> = Object.freeze({
  PS1: '',
  PS2: '',
  PROMPT_COMMAND: '',
  HISTFILE: '/dev/null',
});

/**
 * The `shell` backend: `bash --noprofile --norc -i` (readline off) on a
 * node-pty PTY, its environment built by the shared child-env rules (scrub,
 * model-friendly settings, then the session's `DSH_*` overlay). A shell
 * opened with a confinement (its call's plan's, else the policy's fallback
 * plan from a bound `FallbackPlanner`, which fails closed) runs confined for
 * its whole life, and failed commands with the denial signature are marked.
 */
@injectable()
export class BashPtyBackend implements TerminalBackend {
  readonly type = 'shell';
  private readonly config: BashPtyConfig;

  constructor(
    @inject(BashPtyConfig) @optional() config?: Partial<BashPtyConfig>,
    @inject(FallbackPlanner) @optional() private readonly fallback?: FallbackPlanner,
    @inject(Redactor) @optional() private readonly redactor?: Redactor,
  ) {
    this.config = resolveBashPtyConfig(config);
  }

  async open(options: TerminalOpenOptions): Promise<PtySession> {
    checkWorkdir(options.cwd, 'working directory');
    const confined =
      options.confinement !== undefined ? (options.confinement ?? undefined) : this.fallback?.forSession(options.session);
    // One group for the shell's whole life: its limits hold across calls.
    const limits = confined?.newLimitGroup?.();
    const wrapArgv = confined ? (argv: string[]) => confined.wrapArgv(argv, { cwd: options.cwd, ...(limits ? { limits } : {}) }) : options.wrapArgv;
    // What the shell runs (`bash -c`, `sh`) must not source a file named by the server's environment either.
    const env = dropShellStartupVars(buildChildEnv(process.env, { allow: this.config.allowEnv, dshEnv: options.dshEnv, extra: SHELL_ENV }));
    // The shell's commands carry its tag: their escaped daemons die with the shell, or with the server.
    env[PROCESS_TAG_VARIABLE] = newProcessTag();
    ensureReaperWatchdog(this.config.shellPath);
    let shell;
    try {
      shell = await startBashPty(
        {
          cwd: options.cwd,
          env,
          scrollbackChars: positiveOr(options.scrollbackChars, this.config.scrollbackChars),
          cols: positiveOr(options.cols, this.config.cols),
          rows: positiveOr(options.rows, this.config.rows),
          ...(wrapArgv ? { wrapArgv } : {}),
          ...(this.redactor ? { redactor: this.redactor } : {}),
        },
        this.config,
      );
    } catch (error) {
      await limits?.release();
      throw error;
    }
    return confined ? new ConfinedPtySession(shell, confined, limits) : shell;
  }
}

function positiveOr(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
}
