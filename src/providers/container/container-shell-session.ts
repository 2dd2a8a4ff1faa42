import type { Redactor } from '../output-filter/redactor.js';
import { writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { MAX_TIMER_MS } from '../../core/timer.js';
import type { BashPtyConfig } from '../terminal/bash-pty-config.js';
import { MarkerParser } from '../terminal/marker-parser.js';
import { commandLine, envStatements, initLine, inputBytes, newToken, readyMarker } from '../terminal/marker-protocol.js';
import { OutputCollector, normalizeTerminalText } from '../terminal/output-collector.js';
import { attachSend, type Attached } from '../terminal/bash-pty-state.js';
import { probeStdinWait, shellTty } from '../terminal/stdin-wait-probe.js';
import { StdinWaitWatcher } from '../terminal/stdin-wait-watcher.js';
import type { PtySession, SendOptions, SendResult } from '../terminal/terminal-service.js';
import type { ContainerEngine, ExecChannel } from './container-engine.js';

export interface ContainerShellSpawn {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  readonly channel: ExecChannel;
  /** The tag every process of this shell carries (to kill its tree). */
  readonly tag: string;
  /** Host directory the container sees at the same path (long command lines travel through it). */
  readonly sharedDir: string;
  /** The shell's pid on this machine when the engine is local; undefined turns stdin-wait detection off. */
  readonly hostPid: number | undefined;
  readonly scrollbackChars: number;
  /** Secrets kept out of the shell's output. */
  readonly redactor?: Redactor;
}

/** A terminal line holds 4095 bytes; a longer framed line travels through files in the shared directory. */
const MAX_INLINE_BYTES = 3500;

/**
 * The parts of a parse step this session uses, read loosely: a frame the
 * shell never ran (no exit code) and output to discard are optional facts
 * that newer marker parsers report.
 */
function readStep(step: ReturnType<MarkerParser['push']>): { output: string; discardEarlier: boolean; end?: { exitCode?: number } } {
  const loose = step as { output: string; discardEarlier?: boolean; end?: { exitCode?: number } };
  return { output: loose.output, discardEarlier: loose.discardEarlier === true, ...(loose.end ? { end: loose.end } : {}) };
}

interface Running {
  readonly parser: MarkerParser;
  collector: OutputCollector;
  exitCode?: number;
  files?: readonly string[];
}


/**
 * The persistent shell inside a session's container: one long-lived
 * `bash -i` exec on a TTY, driven with the PTY backend's marker protocol
 * (marker-protocol.ts). Stdin-wait detection reads the shell's process tree
 * through the host's /proc, so it works only when the engine runs on this
 * machine; elsewhere a command waiting for input runs until its timeout.
 */
export class ContainerShellSession implements PtySession {
  private readonly secret = newToken();
  private readonly decoder = new StringDecoder('utf8');
  private running?: Running;
  private attached?: Attached;
  private exitCode?: number | null;
  private closing?: Promise<void>;
  private startup?: { buffer: string; marker: string; done: () => void };
  private readonly watcher: StdinWaitWatcher;
  private tty = '';

  private constructor(
    private readonly spawn: ContainerShellSpawn,
    private readonly config: BashPtyConfig,
  ) {
    const hostPid = spawn.hostPid;
    this.watcher = new StdinWaitWatcher({
      quietMs: config.stdinProbeQuietMs,
      maxIntervalMs: config.stdinProbeMaxIntervalMs,
      active: () => hostPid !== undefined && this.attached !== undefined && this.commandRunning && this.alive,
      isWaiting: () => this.running?.parser.started === true && probeStdinWait(hostPid!, this.tty) === 'waiting',
      onWaiting: () => this.settle({ ...this.takeOutput(this.running!), end: { kind: 'waiting-for-input' } }),
    });
    spawn.channel.stdout.on('data', (chunk: Buffer) => this.onData(this.decoder.write(chunk)));
    void spawn.channel.exited.then(({ exitCode }) => this.onExit(exitCode));
  }

  /** Runs the setup line and resolves once the shell is ready; closes it and throws otherwise. */
  static async start(spawn: ContainerShellSpawn, config: BashPtyConfig): Promise<ContainerShellSession> {
    const session = new ContainerShellSession(spawn, config);
    const nonce = newToken();
    const ready = new Promise<void>((resolve) => {
      session.startup = { buffer: '', marker: readyMarker(nonce), done: resolve };
    });
    spawn.channel.write(initLine(session.secret, nonce));
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      ready.then(() => 'ready' as const),
      spawn.channel.exited.then(() => 'exited' as const),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), config.startupTimeoutMs))),
    ]);
    clearTimeout(timer);
    session.startup = undefined;
    if (outcome === 'ready') {
      if (spawn.hostPid !== undefined) session.tty = shellTty(spawn.hostPid);
      return session;
    }
    await session.close();
    throw new Error(
      outcome === 'timeout'
        ? `bash in the container did not become ready within ${config.startupTimeoutMs}ms`
        : `bash in the container exited during startup (code ${String(session.exitCode ?? '?')}); check that the image has bash`,
    );
  }

  get pid(): number {
    return this.spawn.hostPid ?? -1;
  }

  get alive(): boolean {
    return this.exitCode === undefined && this.closing === undefined;
  }

  get commandRunning(): boolean {
    return this.running !== undefined && this.running.exitCode === undefined;
  }

  send(command: string, options: SendOptions): Promise<SendResult> {
    if (this.attached) return Promise.reject(new Error('a command is already running on this PTY'));
    const { timeoutMs } = options;
    if (!(typeof timeoutMs === 'number' && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)) {
      return Promise.reject(
        new Error(`invalid timeoutMs: expected a positive number of milliseconds up to ${MAX_TIMER_MS}, got ${String(timeoutMs)}`),
      );
    }
    if (!this.alive) return Promise.resolve(this.deadResult());
    if (options.signal?.aborted) return this.close().then(() => ({ end: { kind: 'aborted' }, output: '', lostPrefix: false }));
    const running = this.running;
    if (running?.exitCode !== undefined) {
      return Promise.resolve({ ...this.finish({ kind: 'completed', exitCode: running.exitCode }), continuation: { inputDelivered: false } });
    }
    return new Promise((resolve) => {
      let continuation: Attached['continuation'];
      if (running) {
        continuation = { inputDelivered: true };
        this.spawn.channel.write(inputBytes(command));
      } else {
        this.startCommand(command, options.env);
      }
      this.attach(resolve, options, continuation);
    });
  }

  private startCommand(command: string, env: SendOptions['env']): void {
    const nonce = newToken();
    const running: Running = { parser: new MarkerParser(nonce, this.secret), collector: new OutputCollector(this.spawn.scrollbackChars, this.spawn.redactor) };
    let line = commandLine(nonce, command, { env });
    if (Buffer.byteLength(line) > MAX_INLINE_BYTES) {
      // Longer than a terminal line: hand it over through the shared directory the container sees at the same path.
      const files = { env: path.join(this.spawn.sharedDir, `env-${nonce}`), command: path.join(this.spawn.sharedDir, `cmd-${nonce}`) };
      writeFileSync(files.env, envStatements(env).join('\n'), { mode: 0o644 });
      writeFileSync(files.command, command, { mode: 0o644 });
      running.files = [files.env, files.command];
      // Passed loosely: a protocol that frames long lines itself takes only `env` and ignores the files.
      const options: Record<string, unknown> = { env, files };
      line = commandLine(nonce, command, options);
    }
    this.running = running;
    this.spawn.channel.write(line);
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
    if (!running || running.exitCode !== undefined) return;
    const step = readStep(running.parser.push(chunk));
    if (step.discardEarlier) running.collector = new OutputCollector(this.spawn.scrollbackChars, this.spawn.redactor);
    running.collector.append(step.output);
    if (step.output !== '') this.attached?.progress?.feed(Buffer.from(normalizeTerminalText(step.output)));
    if (!step.end) return;
    if (step.end.exitCode === undefined) {
      // The shell is back at its prompt but never ran this frame: its state is unknown, so it is replaced.
      void this.close();
      if (this.attached) this.settle(this.finish({ kind: 'shell-exited', exitCode: null, signal: null }));
      return;
    }
    const exitCode = step.end.exitCode;
    running.exitCode = exitCode;
    if (this.attached) this.settle(this.finish({ kind: 'completed', exitCode }));
  }

  private onExit(exitCode: number | null): void {
    this.exitCode = exitCode;
    // Jobs the shell left behind (`sleep 100 &` then `exit`) have no owner any more.
    if (!this.closing) void this.spawn.engine.killTagged(this.spawn.containerId, this.spawn.tag, 'KILL').catch(() => 0);
    if (this.attached) this.settle(this.deadResult());
  }

  private takeOutput(running: Running): { output: string; droppedChars: number; lostPrefix: false } {
    const taken = running.collector.take();
    running.collector = new OutputCollector(this.spawn.scrollbackChars, this.spawn.redactor);
    return { ...taken, lostPrefix: false };
  }

  private finish(end: SendResult['end']): SendResult {
    const running = this.running;
    this.running = undefined;
    if (!running) return { output: '', lostPrefix: false, end };
    for (const file of running.files ?? []) rmSync(file, { force: true });
    return { ...this.takeOutput(running), end };
  }

  private deadResult(): SendResult {
    // Exec statuses carry a signal as 128 + n; the shell's own `exit N` is the common case, so report the code.
    return this.finish({ kind: 'shell-exited', exitCode: this.exitCode ?? null, signal: null });
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
    const taken = this.finish({ kind });
    await this.close();
    attached.resolve(attached.continuation ? { ...taken, continuation: attached.continuation } : taken);
  }

  /** Kills the shell's whole tree inside the container and waits for the exec to end. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.watcher.stop();
      if (this.exitCode === undefined) {
        await this.spawn.engine.killTagged(this.spawn.containerId, this.spawn.tag, 'KILL').catch(() => 0);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([this.spawn.channel.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
        clearTimeout(timer);
      }
      this.spawn.channel.detach();
    })();
    return this.closing;
  }
}
