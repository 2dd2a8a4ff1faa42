import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EXEC_TAG_VAR, type ContainerEngine, type ExecChannel, type ExecExit } from './container-engine.js';
import { CHANNEL_HOLDER, HOLDER_NAME, HOLDER_OPENED, HOLDER_READY, HOLDER_UNSTARTED } from './channel-holder.js';
import { EXEC_WRAPPER, WRAPPER_TAG_SUFFIX } from './container-exec-wrapper.js';
import { FifoStock } from './fifo-stock.js';
import { firstLine, openFifo, type OpenFifo } from './fifo-reader.js';

/** How long a holder may take to say it is ready (a call never waits for it: it runs as an engine exec meanwhile). */
const HOLDER_START_MS = 15_000;

/** How long a call's output may stay open after its status arrived before what still holds it is killed. */
const OUTPUT_IDLE_MS = 200;
/** The longest a call's output may stay open after its status, however much such a process writes. */
const OUTPUT_DRAIN_CAP_MS = 5000;

/** What the model sees when the subshell running its command died before it reported the status (the command is killed). */
const CHANNEL_LOST = "the session's channel into its container broke while the command ran; the command was stopped";

/** What a caller gets when the channel broke before the holder said whether it started the command. */
const CHANNEL_LOST_UNSTARTED = "the session's channel into its container broke before the command could start";

/** An exec's end as the channel reports it: `lost` when the call's subshell died without a status. */
export interface ChannelExit extends ExecExit {
  readonly lost?: string;
}

/** A call the holder was asked to start and has not said it opened yet. */
interface Pending {
  /** `true` once the holder opened the call's files, `false` when it could not. */
  readonly opened: (started: boolean) => void;
  readonly failed: (error: Error) => void;
}

export interface SessionChannelOptions {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  /** A host directory the container sees at the same path (the session's shared directory). */
  readonly sharedDir: string;
  readonly user?: string;
}

/**
 * One long-lived exec per session container (the holder, `CHANNEL_HOLDER`)
 * through which one-shot calls start: a call costs a fork inside the
 * container instead of an engine exec. Each call's stdout, stderr and status
 * are FIFOs in the session's shared directory that the host reads, its stdin
 * a file; the wrapper, the tag and the records are the engine exec's, so
 * `ContainerCommand` cannot tell the two apart. Only the start of a call
 * goes through the holder's stream: a call that started runs to its end even
 * if that stream breaks (an API server that went away for a moment), and
 * the next call starts a new holder. Works only where the container sees
 * this host's session directory, which the holder proves at start.
 */
export class SessionChannel {
  private readonly pending = new Map<string, Pending>();
  private closed = false;
  private ended = false;
  private controlBuffer = '';

  private constructor(
    private readonly options: SessionChannelOptions,
    private readonly dir: string,
    private readonly stock: FifoStock,
    private readonly holder: ExecChannel,
    private readonly holderTag: string,
  ) {
    holder.stdout.on('data', (chunk: Buffer) => this.onControl(chunk.toString('latin1')));
    holder.stdout.resume();
    holder.stderr.resume();
    void holder.exited.then(() => this.broke());
  }

  /**
   * Starts the holder; resolves once it wrote `ready` into a FIFO the host is
   * reading, which proves the container and this process see the same
   * directory on the same machine. Else (the holder cannot reach it, the
   * directory is another machine's, no answer in time) undefined: use engine execs.
   */
  static async open(options: SessionChannelOptions): Promise<SessionChannel | undefined> {
    const dir = path.join(options.sharedDir, 'ch');
    fs.mkdirSync(dir, { mode: 0o700, recursive: true });
    const stock = new FifoStock(dir);
    const [probePath] = await stock.take(1);
    const readyPath = path.join(dir, 'ready');
    fs.renameSync(probePath, readyPath);
    const probe = openFifo(readyPath);
    const holderTag = randomBytes(8).toString('hex');
    let holder: ExecChannel | undefined;
    try {
      holder = await options.engine.exec(options.containerId, {
        argv: ['bash', '-c', CHANNEL_HOLDER, HOLDER_NAME, dir, EXEC_WRAPPER],
        env: { [EXEC_TAG_VAR]: holderTag },
        workdir: '/',
        tty: false,
        stdin: true,
        ...(options.user === undefined ? {} : { user: options.user }),
      });
      const ready = await firstLine(probe.stream, holder.exited, HOLDER_START_MS);
      if (ready === HOLDER_READY) return new SessionChannel(options, dir, stock, holder, holderTag);
    } finally {
      probe.close();
      fs.rmSync(readyPath, { force: true });
    }
    holder.detach();
    // One blocked on a FIFO nobody here reads does not see its stream close.
    await options.engine.killTagged(options.containerId, holderTag, 'KILL').catch(() => 0);
    return undefined;
  }

  get usable(): boolean {
    return !this.closed;
  }

  /**
   * Starts the wrapper with `argv` (`wrapperInput`'s: bash -c <wrapper> shell
   * workdir command) and `env`, its stdin `stdin`. Resolves with the exec's
   * channel, or undefined when the holder could not open the call's files
   * (the command never ran: start it with an engine exec). Rejects when the
   * channel broke before the holder answered.
   */
  async run(argv: readonly string[], env: Readonly<Record<string, string>>, stdin: string): Promise<ExecChannel | undefined> {
    if (this.closed) throw new Error(CHANNEL_LOST_UNSTARTED);
    if (argv[2] !== EXEC_WRAPPER || argv.length !== 6) throw new Error('the channel runs the one-shot wrapper only');
    const id = randomBytes(16).toString('hex');
    const base = path.join(this.dir, id);
    const fifos = await this.stock.take(3);
    const names = ['.o', '.e', '.s'].map((suffix, i) => {
      fs.renameSync(fifos[i]!, base + suffix);
      return base + suffix;
    });
    const [out, err, status] = names.map((name) => openFifo(name)) as [OpenFifo, OpenFifo, OpenFifo];
    const fields = [argv[3]!, argv[4]!, argv[5]!, ...Object.entries(env).map(([name, value]) => `${name}=${value}`)];
    fs.writeFileSync(`${base}.q`, fields.join('\0') + '\0', { mode: 0o600, flag: 'wx' });
    fs.writeFileSync(`${base}.i`, stdin, { mode: 0o600, flag: 'wx' });
    const closeAll = (): void => [out, err, status].forEach((fifo) => fifo.close());
    let started: boolean;
    try {
      started = await new Promise<boolean>((opened, failed) => {
        this.pending.set(id, { opened, failed });
        this.holder.write(`${id}\n`);
      });
    } catch (error) {
      closeAll();
      throw error;
    } finally {
      this.pending.delete(id);
      // Open on both sides now (or never to be): the names have done their job.
      for (const name of [...names, `${base}.q`, `${base}.i`]) fs.rmSync(name, { force: true });
    }
    if (!started) {
      // The holder could not open the call's files: this channel cannot run commands.
      this.closed = true;
      closeAll();
      return undefined;
    }
    const tag = (env[EXEC_TAG_VAR] ?? '').replace(new RegExp(`${WRAPPER_TAG_SUFFIX}$`), '');
    return this.track(tag, out, err, status);
  }

  /** Stops the holder (running calls are the container's to end). */
  close(): void {
    if (this.closed) return;
    this.holder.detach();
    this.broke();
  }

  /**
   * The call's end: its status FIFO ends once the subshell that ran the
   * wrapper exited, with the wrapper's status in it, or without one when
   * that subshell was killed (then the command is killed too, as lost).
   */
  private track(tag: string, out: OpenFifo, err: OpenFifo, status: OpenFifo): ExecChannel {
    let settle!: (exit: ChannelExit) => void;
    const exited = new Promise<ChannelExit>((resolve) => (settle = resolve));
    const timers: NodeJS.Timeout[] = [];
    const close = (): void => {
      out.close();
      err.close();
      status.close();
    };
    let statusText = '';
    status.stream.on('data', (chunk: Buffer) => (statusText += chunk.toString('latin1')));
    // The subshell holds its end now: the status ends when it exits.
    status.release();
    let code: number | null = null;
    let lost: string | undefined;
    void status.ended.then(() => {
      const reported = /^(\d+)\n$/.exec(statusText);
      if (reported === null) {
        lost = CHANNEL_LOST;
        void this.killTree(tag);
        close();
        return;
      }
      code = Number(reported[1]);
      // The pipes end once read: the wrapper killed its command's tree before it ended. A writer
      // still there a moment later outlived a wrapper that was killed itself: kill it as the
      // wrapper would have, and read what it wrote up to the cap.
      out.release();
      err.release();
      timers.push(setTimeout(() => void this.killTree(tag), OUTPUT_IDLE_MS), setTimeout(close, OUTPUT_DRAIN_CAP_MS));
    });
    void Promise.all([out.ended, err.ended, status.ended]).then(() => {
      for (const timer of timers) clearTimeout(timer);
      settle(lost === undefined ? { exitCode: code } : { exitCode: null, lost });
    });
    return {
      stdout: out.stream,
      stderr: err.stream,
      exited,
      write: () => undefined,
      resize: async () => undefined,
      hostPid: async () => undefined,
      detach: close,
    };
  }

  private onControl(text: string): void {
    this.controlBuffer += text;
    let newline: number;
    while ((newline = this.controlBuffer.indexOf('\n')) >= 0) {
      const line = this.controlBuffer.slice(0, newline);
      this.controlBuffer = this.controlBuffer.slice(newline + 1);
      const [id, word] = line.split(' ');
      const call = id === undefined ? undefined : this.pending.get(id);
      if (call === undefined) continue;
      if (word === HOLDER_OPENED) call.opened(true);
      else if (word === HOLDER_UNSTARTED) call.opened(false);
    }
  }

  /** The holder's stream ended: calls not yet started fail, started ones run on; later calls need a new holder. */
  private broke(): void {
    if (this.ended) return;
    this.ended = this.closed = true;
    for (const call of this.pending.values()) call.failed(new Error(CHANNEL_LOST_UNSTARTED));
  }

  private async killTree(tag: string): Promise<void> {
    if (tag === '') return;
    try {
      await this.options.engine.killTagged(this.options.containerId, tag, 'KILL');
      await this.options.engine.killTagged(this.options.containerId, tag + WRAPPER_TAG_SUFFIX, 'KILL');
    } catch {
      // The container is gone: so is the tree.
    }
  }
}
