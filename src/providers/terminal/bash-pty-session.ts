import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import path from 'node:path';
import type { IPty } from 'node-pty';
import { MAX_TIMER_MS, type BashPtyConfig } from './bash-pty-config.js';
import { MarkerParser } from './marker-parser.js';
import { MAX_INLINE_BYTES, commandLine, envStatements, initLine, inputBytes, newToken, readyMarker } from './marker-protocol.js';
import { OutputCollector, normalizeTerminalText } from './output-collector.js';
import { requirePty } from './pty-loader.js';
import { ProgressReporter } from '../shell/progress-reporter.js';
import { killShellTree } from './process-tree.js';
import { probeStdinWait, shellTty } from './stdin-wait-probe.js';
import { StdinWaitWatcher } from './stdin-wait-watcher.js';
import type { PtySession, SendOptions, SendResult } from './terminal-service.js';

export interface BashPtySpawn {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly scrollbackChars: number;
  readonly cols: number;
  readonly rows: number;
  /** Rewrites the shell's argv (a sandbox wrapper); the PTY stays its terminal. */
  readonly wrapArgv?: (argv: string[]) => string[];
}

/** The command currently framed in the shell; it outlives a send that returned early (stdin wait). */
interface Running {
  readonly parser: MarkerParser;
  collector: OutputCollector;
  exitCode?: number;
  /** Private files that carried a long command line (removed when the command is released). */
  files?: { readonly env: string; readonly command: string };
}

/** The send waiting for `running` to settle. */
interface Attached {
  readonly resolve: (result: SendResult) => void;
  /** Present only when the caller listens for progress. */
  readonly progress?: ProgressReporter;
  readonly continuation?: { readonly inputDelivered: boolean };
  readonly dispose: () => void;
}

interface ShellExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, n]) => [n, name]));

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
  private exitInfo?: ShellExit;
  private closing?: Promise<void>;
  private leftovers: Promise<unknown> = Promise.resolve();
  private readonly watcher: StdinWaitWatcher;
  private tty = '';
  private tempDir?: string;
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
      // Before the start marker bash has not begun the command, so a terminal read is its prompt.
      isWaiting: () => this.running?.parser.started === true && probeStdinWait(this.pid, this.tty) === 'waiting',
      onWaiting: () => this.settle({ ...this.takeOutput(this.running!), end: { kind: 'waiting-for-input' } }),
    });
    let markExited!: () => void;
    this.exited = new Promise((resolve) => (markExited = resolve));
    pty.onData((chunk) => this.onData(chunk));
    pty.onExit(({ exitCode, signal }) => {
      this.onExit(signal ? { exitCode: null, signal: SIGNAL_NAMES.get(signal) ?? `SIG${signal}` } : { exitCode, signal: null });
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
    return this.running !== undefined && this.running.exitCode === undefined;
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
      collector: new OutputCollector(this.spec.scrollbackChars),
    };
    let line = commandLine(nonce, command, { env });
    if (Buffer.byteLength(line) > MAX_INLINE_BYTES) {
      // A canonical-mode terminal line holds 4095 bytes; a longer command or env travels through private files.
      this.tempDir ??= mkdtempSync(path.join(tmpdir(), 'dsh-pty-'));
      const files = { env: path.join(this.tempDir, `env-${nonce}`), command: path.join(this.tempDir, `cmd-${nonce}`) };
      writeFileSync(files.env, envStatements(env).join('\n'), { mode: 0o600 });
      writeFileSync(files.command, command, { mode: 0o600 });
      running.files = files;
      line = commandLine(nonce, command, { files });
    }
    this.running = running;
    this.pty.write(line);
  }

  private attach(resolve: Attached['resolve'], options: SendOptions, continuation: Attached['continuation']): void {
    const timeout = setTimeout(() => void this.interrupt('timeout'), options.timeoutMs);
    const onAbort = () => void this.interrupt('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const progress = options.onProgress ? new ProgressReporter(options.onProgress) : undefined;
    this.attached = {
      resolve,
      progress,
      continuation,
      dispose: () => {
        progress?.stop();
        clearTimeout(timeout);
        this.watcher.stop();
        options.signal?.removeEventListener('abort', onAbort);
      },
    };
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
    if (!running || running.exitCode !== undefined) return;
    const step = running.parser.push(chunk);
    running.collector.append(step.output);
    if (step.output !== '') this.attached?.progress?.feed(Buffer.from(normalizeTerminalText(step.output)));
    if (!step.end) return;
    running.exitCode = step.end.exitCode;
    if (this.attached) this.settle(this.finish({ kind: 'completed', exitCode: step.end.exitCode }));
  }

  private onExit(exit: ShellExit): void {
    this.exitInfo = exit;
    // Jobs the shell left behind (e.g. `sleep &` then `exit`) have no owner any more.
    if (!this.closing) this.leftovers = killShellTree(this.pid, false);
    if (this.attached) this.settle(this.deadResult());
  }

  private takeOutput(running: Running): { output: string; droppedChars: number; lostPrefix: false } {
    const taken = running.collector.take();
    running.collector = new OutputCollector(this.spec.scrollbackChars);
    return { ...taken, lostPrefix: false };
  }

  /** Forgets the framed command and returns its remaining output. */
  private release(): { output: string; droppedChars: number; lostPrefix: false } {
    const running = this.running;
    if (!running) return { output: '', droppedChars: 0, lostPrefix: false };
    this.running = undefined;
    if (running.files) for (const file of Object.values(running.files)) rmSync(file, { force: true });
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

  private async interrupt(kind: 'timeout' | 'aborted'): Promise<void> {
    const attached = this.attached;
    if (!attached) return;
    this.attached = undefined;
    attached.dispose();
    const taken = this.release();
    await this.close();
    const result: SendResult = { ...taken, end: { kind } };
    attached.resolve(attached.continuation ? { ...result, continuation: attached.continuation } : result);
  }

  private async closeWith(end: { kind: 'aborted' }): Promise<SendResult> {
    await this.close();
    return { end, output: '', lostPrefix: false };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await killShellTree(this.pid, this.exitInfo === undefined);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      await this.leftovers;
      try {
        if (this.tempDir) rmSync(this.tempDir, { recursive: true, force: true });
      } catch {
        // A leftover private temp dir is harmless; closing must not fail for it.
      }
    })();
    return this.closing;
  }
}
