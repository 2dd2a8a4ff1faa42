import type { IPty } from 'node-pty';
import { MAX_TIMER_MS } from '../../core/timer.js';
import type { BashPtyConfig } from './bash-pty-config.js';
import { MarkerParser } from './marker-parser.js';
import { commandLine, initLine, inputBytes, newToken, readyMarker } from './marker-protocol.js';
import { OutputCollector, normalizeTerminalText } from './output-collector.js';
import { requirePty } from './pty-loader.js';
import { killShellTree } from './process-tree.js';
import { killTagged, PROCESS_TAG_VARIABLE } from '../shell/leftover-reaper.js';
import { probeStdinWait, shellTty } from './stdin-wait-probe.js';
import { StdinWaitWatcher } from './stdin-wait-watcher.js';
import type { PtySession, SendOptions, SendResult } from './terminal-service.js';
import type { Redactor } from '../output-filter/redactor.js';
import { attachSend, signalName, type Attached, type PtyExit, type Running } from './bash-pty-state.js';

export interface BashPtySpawn {
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

/**
 * One interactive bash on a PTY. Completion is detected from PTY data
 * (markers, see marker-protocol.ts); only a quiet running command is checked
 * for a terminal read (see StdinWaitWatcher). A command that returned early
 * stays framed (`running`): the next send feeds it input and waits for its
 * end marker.
 */
export class BashPtySession implements PtySession {
  private readonly secret = newToken();
  private running?: Running;
  private attached?: Attached;
  private exitInfo?: PtyExit;
  private closing?: Promise<void>;
  private leftovers: Promise<unknown> = Promise.resolve();
  private readonly watcher: StdinWaitWatcher;
  private tty = '';
  private startup?: { buffer: string; marker: string; done: () => void };
  private readonly exited: Promise<void>;

  private constructor(
    private readonly pty: IPty,
    private readonly spec: BashPtySpawn,
    private readonly config: BashPtyConfig,
  ) {
    this.watcher = new StdinWaitWatcher({
      quietMs: config.stdinProbeQuietMs,
      maxIntervalMs: config.stdinProbeMaxIntervalMs,
      active: () => this.attached !== undefined && this.commandRunning && this.alive,
      isWaiting: () => {
        const running = this.running;
        // A long line may still be on its way; only a started command, or a one-line frame, can be judged.
        if (!running || (!running.parser.started && running.multiLine)) return false;
        return probeStdinWait(this.pid, this.tty) === 'waiting';
      },
      // Before any start marker, a terminal read is bash back at its prompt: the line ran without its frame.
      onWaiting: () =>
        this.running?.parser.started === true
          ? this.settle({ ...this.takeOutput(this.running), end: { kind: 'waiting-for-input' } })
          : void this.interrupt('framing-lost'),
    });
    let markExited!: () => void;
    this.exited = new Promise((resolve) => (markExited = resolve));
    pty.onData((chunk) => this.onData(chunk));
    pty.onExit(({ exitCode, signal }) => {
      this.onExit(signal ? { exitCode: null, signal: signalName(signal) } : { exitCode, signal: null });
      markExited();
    });
  }

  /** Spawns bash and resolves once it has run the setup line; kills it and throws on failure. */
  static async start(spec: BashPtySpawn, config: BashPtyConfig): Promise<BashPtySession> {
    const argv = [config.shellPath, '--noprofile', '--norc', '--noediting', '-i'];
    const [file, ...args] = spec.wrapArgv ? spec.wrapArgv(argv) : argv;
    const { spawn } = await requirePty();
    const pty = spawn(file!, args, {
      cwd: spec.cwd,
      env: spec.env,
      cols: spec.cols,
      rows: spec.rows,
    });
    const session = new BashPtySession(pty, spec, config);
    await session.handshake();
    return session;
  }

  get pid(): number {
    return this.pty.pid;
  }

  get alive(): boolean {
    return this.exitInfo === undefined && this.closing === undefined;
  }

  /** True while a framed command has not ended (including one waiting for input between sends). */
  get commandRunning(): boolean {
    return this.running !== undefined && this.running.exitCode === undefined && this.running.lost !== true;
  }

  private async handshake(): Promise<void> {
    const nonce = newToken();
    const ready = new Promise<void>((resolve) => {
      this.startup = { buffer: '', marker: readyMarker(nonce), done: resolve };
    });
    this.pty.write(initLine(this.secret, nonce));
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      ready.then(() => 'ready' as const),
      this.exited.then(() => 'exited' as const),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.config.startupTimeoutMs))),
    ]);
    clearTimeout(timer);
    this.startup = undefined;
    if (outcome === 'ready') {
      this.tty = shellTty(this.pid);
      return;
    }
    const exit = this.exitInfo;
    await this.close();
    if (outcome === 'timeout') throw new Error(`bash did not become ready within ${this.config.startupTimeoutMs}ms`);
    throw new Error(
      `bash exited during startup (${exit?.signal ? `signal ${exit.signal}` : `code ${exit?.exitCode ?? '?'}`}); check that "${this.config.shellPath}" runs and the directory ${this.spec.cwd} is usable`,
    );
  }

  send(command: string, options: SendOptions): Promise<SendResult> {
    if (this.attached) return Promise.reject(new Error('a command is already running on this PTY'));
    const { timeoutMs } = options;
    if (!(typeof timeoutMs === 'number' && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)) {
      // setTimeout would fire at once and take the shell down with a bogus timeout.
      return Promise.reject(
        new Error(`invalid timeoutMs: expected a positive number of milliseconds up to ${MAX_TIMER_MS}, got ${String(timeoutMs)}`),
      );
    }
    if (!this.alive) return Promise.resolve(this.deadResult());
    if (options.signal?.aborted) return this.closeWith({ kind: 'aborted' });
    const running = this.running;
    if (running?.lost) return this.closeWith({ kind: 'framing-lost' }, this.release());
    if (running?.exitCode !== undefined) {
      // The waiting command finished between calls: report it; the text was meant as its input, so do not run it.
      return Promise.resolve({ ...this.finish({ kind: 'completed', exitCode: running.exitCode }), continuation: { inputDelivered: false } });
    }
    return new Promise((resolve) => {
      let continuation: Attached['continuation'];
      if (running) {
        continuation = { inputDelivered: true };
        this.pty.write(inputBytes(command));
      } else {
        this.startCommand(command, options.env);
      }
      this.attach(resolve, options, continuation);
    });
  }

  private startCommand(command: string, env: SendOptions['env']): void {
    const nonce = newToken();
    const running: Running = {
      parser: new MarkerParser(nonce, this.secret),
      collector: new OutputCollector(this.spec.scrollbackChars, this.spec.redactor),
    };
    // Long commands span several physical lines (continuations): they travel as data, never through a file.
    const line = commandLine(nonce, command, { env });
    running.multiLine = line.indexOf('\n') < line.length - 1;
    this.running = running;
    this.pty.write(line);
  }

  private attach(resolve: Attached['resolve'], options: SendOptions, continuation: Attached['continuation']): void {
    this.attached = attachSend(resolve, options, continuation, {
      interrupt: (kind) => void this.interrupt(kind),
      watcher: this.watcher,
    });
    this.watcher.start();
  }

  private onData(chunk: string): void {
    this.watcher.noteData();
    const startup = this.startup;
    if (startup) {
      startup.buffer = (startup.buffer + chunk).slice(-4096);
      if (startup.buffer.includes(startup.marker)) startup.done();
      return;
    }
    const running = this.running;
    if (!running || running.exitCode !== undefined || running.lost) return;
    const step = running.parser.push(chunk);
    if (step.discardEarlier) running.collector = new OutputCollector(this.spec.scrollbackChars, this.spec.redactor);
    running.collector.append(step.output);
    if (step.output !== '') this.attached?.progress?.feed(Buffer.from(normalizeTerminalText(step.output)));
    if (!step.end) return;
    if (step.end.via === 'lost') {
      running.lost = true;
      if (this.attached) void this.interrupt('framing-lost');
      return;
    }
    running.exitCode = step.end.exitCode;
    if (this.attached) this.settle(this.finish({ kind: 'completed', exitCode: step.end.exitCode }));
  }

  private onExit(exit: PtyExit): void {
    this.exitInfo = exit;
    // Jobs the shell left behind (e.g. `sleep &` then `exit`) have no owner any more.
    if (!this.closing) this.leftovers = killShellTree(this.pid, false).then(() => this.killEscapees());
    if (this.attached) this.settle(this.deadResult());
  }

  private takeOutput(running: Running): { output: string; droppedChars: number; collapsedUpdates: number; lostPrefix: false } {
    const taken = running.collector.take();
    running.collector = new OutputCollector(this.spec.scrollbackChars, this.spec.redactor);
    return { ...taken, lostPrefix: false };
  }

  /** Forgets the framed command and returns its remaining output. */
  private release(): { output: string; droppedChars: number; collapsedUpdates?: number; lostPrefix: false } {
    const running = this.running;
    if (!running) return { output: '', droppedChars: 0, lostPrefix: false };
    this.running = undefined;
    return this.takeOutput(running);
  }

  private finish(end: SendResult['end']): SendResult {
    return { ...this.release(), end };
  }

  private deadResult(): SendResult {
    const exit = this.exitInfo ?? { exitCode: null, signal: null };
    return this.finish({ kind: 'shell-exited', exitCode: exit.exitCode, signal: exit.signal });
  }

  private settle(result: SendResult): void {
    const attached = this.attached;
    if (!attached) return;
    this.attached = undefined;
    attached.dispose();
    attached.resolve(attached.continuation ? { ...result, continuation: attached.continuation } : result);
  }

  private async interrupt(kind: 'timeout' | 'aborted' | 'framing-lost'): Promise<void> {
    const attached = this.attached;
    if (!attached) return;
    this.attached = undefined;
    attached.dispose();
    const taken = this.release();
    await this.close();
    const result: SendResult = { ...taken, end: { kind } };
    attached.resolve(attached.continuation ? { ...result, continuation: attached.continuation } : result);
  }

  private async closeWith(end: { kind: 'aborted' | 'framing-lost' }, taken: Partial<SendResult> = {}): Promise<SendResult> {
    await this.close();
    return { output: '', ...taken, end, lostPrefix: false };
  }

  /** Processes that left the shell's tree (`setsid`, double fork) still carry its tag. */
  private killEscapees(): void {
    const tag = this.spec.env[PROCESS_TAG_VARIABLE];
    if (tag !== undefined) killTagged(tag);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await killShellTree(this.pid, this.exitInfo === undefined);
      this.killEscapees();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      await this.leftovers;
    })();
    return this.closing;
  }
}
