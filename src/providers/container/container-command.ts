import type { Redactor } from '../output-filter/redactor.js';
import { randomBytes } from 'node:crypto';
import { constants as osConstants } from 'node:os';
import { OutputCapture } from '../shell/output-capture.js';
import type { ExecSpec, ExecutorConfig, ProcessOutcome } from '../shell/shell-executor.js';
import type { ShellExit, StopReason } from '../shell/shell-process.js';
import type { SpillDirectory } from '../shell/spill-directory.js';
import { EXEC_TAG_VAR, type ContainerEngine, type ExecChannel } from './container-engine.js';
import { LeftoverTrailer } from '../shell/leftover-trailer.js';
import { workdirMessage, type WorkdirProblem } from '../shell/workdir-check.js';

/** The wrapper's status when it could not enter the workdir (the command never ran). */
const WORKDIR_STATUS = 125;

/**
 * Enters the workdir first: the runtime's own chdir failure is an opaque
 * "OCI runtime exec failed" with status 126, so the wrapper reports why on
 * stderr as `dsh-workdir:<missing|notdir|denied>:<tag>` (see `workdirFailure`).
 * Then runs the command in a child bash in its own process group (`set -m`), then
 * kills what it left behind — the members of its group and every process
 * carrying this exec's tag (`setsid` escapes), counted — so the exec's
 * streams close when the command is done: the in-container twin of the local
 * reaper. The count goes last on stderr (see leftover-trailer.ts). The
 * wrapper's own stderr is /dev/null (job reports such as "Terminated"); the
 * command's goes to the exec's stderr through fd 3.
 */
const WRAPPER =
  'cd -- "$2" 2>/dev/null || { if [[ ! -e $2 ]]; then w=missing; elif [[ ! -d $2 ]]; then w=notdir; else w=denied; fi; ' +
  `printf 'dsh-workdir:%s:%s' "$w" "$${EXEC_TAG_VAR}" >&2; exit ${WORKDIR_STATUS}; }; ` +
  'set -m; exec 3>&2 2>/dev/null; "$0" -c "$1" 2>&3 3>&- & p=$!; wait $p; s=$?; k=(); ' +
  'for d in /proc/[0-9]*; do q=${d#/proc/}; [[ $q == "$$" ]] && continue; ' +
  // Group members count by their stat (a process mid-execve shows no environ yet); zombies are already dead.
  'read -r t <"$d/stat" || continue; t=${t##*) }; set -- $t; [[ $1 == Z ]] && continue; ' +
  '[[ $3 == "$p" ]] && { k+=("$q"); continue; }; ' +
  'mapfile -d "" -t v <"$d/environ" || continue; for x in "${v[@]}"; do ' +
  `[[ $x == "${EXEC_TAG_VAR}=$${EXEC_TAG_VAR}" ]] && { k+=("$q"); break; }; done; done; n=0; ` +
  // Stopped first, as in killTagged: none of them can start another process while the others are killed.
  '((${#k[@]})) && { kill -STOP "${k[@]}"; for q in "${k[@]}"; do kill -9 "$q" && n=$((n+1)); done; }; kill -9 -- -$p; ' +
  `((n)) && printf '\\037dsh-left:%s:%d\\037' "$${EXEC_TAG_VAR}" $n >&3; exit $s`;

/** How often a stopped exec that has not ended is killed again. */
const KILL_RETRY_MS = 500;

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, n]) => [n, name]));

export interface ContainerCommandOptions {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  readonly spec: ExecSpec;
  /** The exec's environment (already built; the tag is added here). */
  readonly env: Readonly<Record<string, string>>;
  readonly config: ExecutorConfig;
  readonly spills: SpillDirectory;
  readonly user?: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly onOutput?: (chunk: Buffer, stream: 0 | 1) => void;
  /** Secrets kept out of the captured text and the spill files. */
  readonly redactor?: Redactor;
}

/**
 * One `bash -c` exec in a session's container with bounded capture of both
 * streams (the shared `OutputCapture`, spilling into the session's directory
 * that the container sees at the same path). Stopping signals the command's
 * whole process tree inside the container: TERM, then KILL after the grace.
 */
export class ContainerCommand {
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  readonly exited: Promise<ShellExit>;
  private reason: StopReason | undefined;
  private done = false;
  private timers: NodeJS.Timeout[] = [];
  private readonly onAbort = (): void => this.stop('abort');
  private readonly trailer: LeftoverTrailer;

  private constructor(
    private readonly options: ContainerCommandOptions,
    channel: ExecChannel,
    private readonly tag: string,
  ) {
    this.trailer = new LeftoverTrailer(tag);
    const limits = { maxOutputBytes: options.config.maxOutputBytes, maxSpillBytes: options.config.maxSpillBytes };
    this.stdout = new OutputCapture(limits, options.spills, 'stdout', options.redactor);
    this.stderr = new OutputCapture(limits, options.spills, 'stderr', options.redactor);
    channel.stdout.on('data', (chunk: Buffer) => {
      this.stdout.write(chunk);
      options.onOutput?.(chunk, 0);
    });
    channel.stderr.on('data', (chunk: Buffer) => {
      const output = this.trailer.push(chunk);
      if (output.length === 0) return;
      this.stderr.write(output);
      options.onOutput?.(output, 1);
    });
    if (options.spec.stdin !== undefined) channel.write(options.spec.stdin);
    this.exited = channel.exited.then(({ exitCode }) => {
      this.done = true;
      for (const timer of this.timers) clearTimeout(timer);
      options.signal?.removeEventListener('abort', this.onAbort);
      const held = this.trailer.end();
      if (held.length > 0) this.stderr.write(held);
      this.stdout.close();
      this.stderr.close();
      return classify(exitCode, this.reason);
    });
    if (options.timeoutMs !== undefined) this.timers.push(setTimeout(() => this.stop('timeout'), options.timeoutMs));
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Starts the exec; rejects (with the engine's cause) when it could not start. */
  static async start(options: ContainerCommandOptions): Promise<ContainerCommand> {
    const tag = randomBytes(8).toString('hex');
    const channel = await options.engine.exec(options.containerId, {
      argv: ['bash', '-c', WRAPPER, options.config.shellPath, options.spec.command, options.spec.workdir],
      env: { ...options.env, [EXEC_TAG_VAR]: tag },
      workdir: '/',
      tty: false,
      stdin: options.spec.stdin !== undefined,
      ...(options.user === undefined ? {} : { user: options.user }),
    });
    return new ContainerCommand(options, channel, tag);
  }

  /** Once exited: why the command could not start in its workdir (it never ran), else undefined. */
  workdirFailure(exit: ShellExit): string | undefined {
    if (exit.exitCode !== WORKDIR_STATUS) return undefined;
    const match = /^dsh-workdir:(missing|notdir|denied):(\w+)$/.exec(this.stderr.text());
    return match && match[2] === this.tag ? workdirMessage(match[1] as WorkdirProblem, this.options.spec.workdir) : undefined;
  }

  /** How a background command ended; a workdir it could not enter is an `error` (it never ran). */
  outcome(): Promise<ProcessOutcome> {
    return this.exited.then((exit) => {
      const unusable = this.workdirFailure(exit);
      return unusable === undefined ? { exitCode: exit.exitCode, signal: exit.signal } : { exitCode: null, signal: null, error: unusable };
    });
  }

  /** Processes still alive when the command ended, killed then (known once it exited). */
  get leftoversKilled(): number {
    return this.trailer.count;
  }

  get stopReason(): StopReason | undefined {
    return this.reason;
  }

  get finished(): boolean {
    return this.done;
  }

  /**
   * TERM to the whole tree, KILL after the grace, and KILL again until the
   * exec has ended: on a loaded engine the exec's processes may not have
   * started when the first signals went out. The first reason wins.
   */
  stop(reason: StopReason): void {
    if (this.done || this.reason !== undefined) return;
    this.reason = reason;
    void this.signalTree('TERM');
    const kill = (): void => {
      if (this.done) return;
      void this.signalTree('KILL');
      this.timers.push(setTimeout(kill, KILL_RETRY_MS));
    };
    this.timers.push(setTimeout(kill, this.options.config.graceMs));
  }

  private async signalTree(signal: 'TERM' | 'KILL'): Promise<void> {
    try {
      await this.options.engine.killTagged(this.options.containerId, this.tag, signal);
    } catch {
      // The container is gone: so is the tree.
    }
  }
}

/** Exec statuses are `128 + n` for a signal; only a stop of ours is reported as that signal. */
function classify(exitCode: number | null, reason: StopReason | undefined): ShellExit {
  if (reason !== undefined && exitCode !== null && exitCode > 128) {
    const name = SIGNAL_NAMES.get(exitCode - 128);
    if (name) return { exitCode: null, signal: name, reason };
  }
  return { exitCode, signal: null, reason };
}
