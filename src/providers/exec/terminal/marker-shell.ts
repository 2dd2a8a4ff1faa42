import type { Redactor } from '../../output-filter/redactor.js';
import type { BashPtyConfig } from './bash-pty-config.js';
import { attachSend, invalidTimeout, type Attached, type PtyExit, type Running } from './bash-pty-state.js';
import { EndCheck, promptShell, shellState } from './marker-end-check.js';
import { MarkerParser, type ParseStep } from './marker-parser.js';
import { commandLine, inputBytes, newToken, setupHandshake, syncHandshake, type Handshake } from './marker-protocol.js';
import { OutputCollector, normalizeTerminalText } from './output-collector.js';
import { startFailure, type ShellChannel, type ShellIdentity } from './shell-channel.js';
import { probeStdinWait } from './stdin-wait-probe.js';
import { StdinWaitWatcher } from './stdin-wait-watcher.js';
import type { PtySession, SendOptions, SendResult } from './terminal-service.js';

export interface MarkerShellSpec {
  readonly scrollbackChars: number;
  /** Secrets to keep out of the output. */
  readonly redactor?: Redactor;
  readonly identity: ShellIdentity;
  readonly config: Pick<BashPtyConfig, 'startupTimeoutMs' | 'stdinProbeQuietMs' | 'stdinProbeMaxIntervalMs'>;
  /** The shell's secret when another holder knows it (shared-shell.ts); else a fresh one. */
  readonly secret?: string;
}

/** How long `close` waits for the shell to go after killing it. */
const CLOSE_WAIT_MS = 5_000;

/**
 * One interactive bash driven through the marker protocol (see
 * marker-protocol.ts) over any `ShellChannel`. Completion is read from the
 * stream; only a quiet running command is checked for a terminal read (see
 * StdinWaitWatcher). A command that returned early stays framed (`running`):
 * the next send feeds it input and waits for its end marker. A second send
 * while one is attached is refused: the state below serves one at a time.
 */
export class MarkerShell implements PtySession {
  private running?: Running;
  private attached?: Attached;
  private exitInfo?: PtyExit;
  private closing?: Promise<void>;
  private leftovers: Promise<unknown> = Promise.resolve();
  private readonly watcher: StdinWaitWatcher;
  private tty = '';
  /** The interactive bash itself, whose state proves an end (see EndCheck). */
  private shellPid: number | undefined;
  private startup?: { buffer: string; marker: string; done: () => void };
  private readonly exited: Promise<void>;
  readonly sending = (): boolean => this.attached !== undefined; // a send in flight: someone awaits the shell
  /** Waits for the prompt after a line of ours: what another holder left on the terminal is dropped (shared-shell.ts). */
  readonly resync = (): Promise<void> => this.handshake(syncHandshake(this.secret));
  /** The frame nonce of a command still running (shared-shell.ts hands it to the next holder). */
  readonly runningNonce = (): string | undefined => (this.commandRunning ? this.running!.parser.nonce : undefined);

  private constructor(
    private readonly channel: ShellChannel,
    private readonly spec: MarkerShellSpec,
    private readonly secret = spec.secret ?? newToken(),
  ) {
    const hostPid = channel.hostPid;
    this.watcher = new StdinWaitWatcher({
      quietMs: spec.config.stdinProbeQuietMs,
      maxIntervalMs: spec.config.stdinProbeMaxIntervalMs,
      active: () => hostPid !== undefined && this.attached !== undefined && this.commandRunning && this.alive,
      isWaiting: () => {
        const running = this.running;
        // A long line may still be on its way; only a started command, or a one-line frame, can be judged.
        if (!running || (!running.parser.started && running.multiLine)) return false;
        // A shell idle after an end marker is not a command waiting: the end check confirms it.
        if (running.endCheck?.pending && shellState(this.shellPid, this.tty) === 'idle') return false;
        return probeStdinWait(hostPid!, this.tty) === 'waiting';
      },
      // Before any start marker, a terminal read is bash back at its prompt: the line ran without its frame.
      onWaiting: () =>
        this.running?.parser.started === true
          ? this.settle({ ...this.takeOutput(this.running), end: { kind: 'waiting-for-input' } })
          : void this.interrupt('framing-lost'),
    });
    let markExited!: () => void;
    this.exited = new Promise((resolve) => (markExited = resolve));
    channel.listen(
      (chunk) => this.onData(chunk),
      (exit) => {
        this.onExit(exit);
        markExited();
      },
    );
  }

  /**
   * Sets the shell up, or (`adopt`) takes on one another holder set up with `spec.secret` (shared-shell.ts): resynchronized, or with the command `adopt.running` framed, waiting for input (the next send feeds it; its pid is learnt at its prompt). Closes it and throws when it does not answer.
   */
  static async start(channel: ShellChannel, spec: MarkerShellSpec, adopt?: { readonly running?: string }): Promise<MarkerShell> {
    const shell = new MarkerShell(channel, spec);
    if (adopt?.running === undefined) await (adopt ? shell.resync() : shell.handshake(setupHandshake(shell.secret)));
    else {
      shell.running = { parser: new MarkerParser(adopt.running, shell.secret, { alreadyStarted: true }), collector: shell.newCollector() };
      if (channel.hostPid !== undefined) shell.tty = promptShell(channel.hostPid).tty;
    }
    return shell;
  }

  get pid(): number {
    return this.channel.hostPid ?? -1;
  }

  get alive(): boolean {
    return this.exitInfo === undefined && this.closing === undefined;
  }

  /** True while a framed command has not ended (including one waiting for input between sends). */
  get commandRunning(): boolean {
    return this.running !== undefined && this.running.exitCode === undefined && this.running.lost !== true;
  }

  private async handshake({ line, marker }: Handshake): Promise<void> {
    const ready = new Promise<void>((resolve) => {
      this.startup = { buffer: '', marker, done: resolve };
    });
    this.channel.write(line);
    const { startupTimeoutMs } = this.spec.config;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      ready.then(() => 'ready' as const),
      this.exited.then(() => 'exited' as const),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), startupTimeoutMs))),
    ]);
    clearTimeout(timer);
    this.startup = undefined;
    if (outcome === 'ready') {
      if (this.channel.hostPid !== undefined) ({ tty: this.tty, shellPid: this.shellPid } = promptShell(this.channel.hostPid));
      return;
    }
    const exit = this.exitInfo;
    await this.close();
    throw startFailure(this.spec.identity, outcome === 'timeout' ? { timeoutMs: startupTimeoutMs } : exit);
  }

  send(command: string, options: SendOptions): Promise<SendResult> {
    if (this.attached) return Promise.reject(new Error('a command is already running on this PTY'));
    const invalid = invalidTimeout(options.timeoutMs);
    if (invalid) return Promise.reject(invalid);
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
        this.channel.write(inputBytes(command));
      } else {
        this.startCommand(command, options.env);
      }
      this.attached = attachSend(resolve, options, continuation, {
        interrupt: (kind) => void this.interrupt(kind),
        watcher: this.watcher,
      });
      this.watcher.start();
    });
  }

  private startCommand(command: string, env: SendOptions['env']): void {
    const nonce = newToken();
    const running: Running = { parser: new MarkerParser(nonce, this.secret), collector: this.newCollector() };
    // Long commands span several physical lines (continuations): they travel as data, never through a file.
    const line = commandLine(nonce, command, { env });
    running.multiLine = line.indexOf('\n') < line.length - 1;
    this.running = running;
    this.channel.write(line);
  }

  private newCollector(): OutputCollector {
    return new OutputCollector(this.spec.scrollbackChars, this.spec.redactor);
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
    this.read(running, running.parser.push(chunk));
    running.endCheck?.check();
  }

  /** Collects a parse step; an end marker only starts the end check (the command may have forged it). */
  private read(running: Running, first: ParseStep): void {
    for (let step = first; ; step = running.parser.reopen()) {
      if (step.discardEarlier) running.collector = this.newCollector();
      this.collect(running, running.endCheck ? running.endCheck.output(step.output) : step.output);
      if (!step.end) return;
      // After this call's end marker, a prompt without its nonce is that end's prompt (a syntax error loses the variable).
      if (step.end.via === 'lost' && running.endCheck === undefined) {
        running.lost = true;
        if (this.attached) void this.interrupt('framing-lost');
        return;
      }
      running.endCheck ??= new EndCheck(
        () => shellState(this.shellPid, this.tty),
        (exitCode, forged) => this.confirmEnd(running, exitCode, forged),
      );
      const end = step.end;
      this.collect(running, end.via === 'lost' ? running.endCheck.candidate('prompt') : running.endCheck.candidate(end.via, end.exitCode));
    }
  }

  private collect(running: Running, output: string): void {
    if (output === '') return;
    running.collector.append(output);
    this.attached?.progress?.feed(Buffer.from(normalizeTerminalText(output)));
  }

  private confirmEnd(running: Running, exitCode: number, forged: boolean): void {
    if (this.running !== running) return;
    running.exitCode = exitCode;
    if (forged) running.forgedEnd = true;
    if (this.attached) this.settle(this.finish({ kind: 'completed', exitCode }));
  }

  private onExit(exit: PtyExit): void {
    this.exitInfo = exit;
    // Jobs the shell left behind (e.g. `sleep &` then `exit`) have no owner any more.
    if (!this.closing) this.leftovers = this.channel.kill(false).catch(() => undefined);
    if (this.attached) this.settle(this.deadResult());
  }

  private takeOutput(running: Running): { output: string; droppedChars: number; collapsedUpdates: number; lostPrefix: false } {
    const taken = running.collector.take();
    running.collector = this.newCollector();
    return { ...taken, lostPrefix: false };
  }

  /** Forgets the framed command and returns its remaining output. */
  private release(): { output: string; droppedChars: number; collapsedUpdates?: number; lostPrefix: false } {
    const running = this.running;
    if (!running) return { output: '', droppedChars: 0, lostPrefix: false };
    this.running = undefined;
    if (running.endCheck) running.collector.append(running.endCheck.abandon());
    return this.takeOutput(running);
  }

  private finish(end: SendResult['end']): SendResult {
    const forged = this.running?.forgedEnd === true;
    const result: SendResult = { ...this.release(), end };
    return forged ? { ...result, forgedEnd: true } : result;
  }

  private deadResult(): SendResult {
    const exit = this.exitInfo ?? { exitCode: null, signal: null };
    return this.finish({ kind: 'shell-exited', exitCode: exit.exitCode, signal: exit.signal });
  }

  /** Detaches the waiting send and answers it. */
  private settle(result: SendResult): void {
    const attached = this.attached;
    if (!attached) return;
    this.attached = undefined;
    attached.dispose();
    attached.resolve(attached.continuation ? { ...result, continuation: attached.continuation } : result);
  }

  /** Ends the waiting send early: the shell's state is unknown now, so it is closed first. */
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

  /** Kills the shell's whole tree (or what an exited shell left) and waits for it to go. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.watcher.stop();
      if (this.exitInfo === undefined) {
        await this.channel.kill(true).catch(() => undefined);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
        clearTimeout(timer);
      }
      await this.leftovers;
      this.channel.release?.();
    })();
    return this.closing;
  }
}
