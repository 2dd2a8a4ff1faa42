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

/** What the model sees when the channel broke under a running command (the command is killed). */
const CHANNEL_LOST = "the session's channel into its container broke while the command ran; the command was stopped";

/** What a caller gets when the channel broke before the holder said whether it started the command. */
const CHANNEL_LOST_UNSTARTED = "the session's channel into its container broke before the command could start";

/** An exec's end as the channel reports it: `lost` when the channel broke under it. */
export interface ChannelExit extends ExecExit {
  readonly lost?: string;
}

/** One call in flight on the channel; what the holder said is kept until the call's channel is built. */
interface Call {
  readonly tag: string;
  /** Settles once the holder said it opened the call's files (`true`) or could not (`false`). */
  readonly opened: (started: boolean) => void;
  readonly failed: (error: Error) => void;
  /** The wrapper's exit status, once the holder reported it. */
  status?: number;
  /** Set when the channel broke under the call. */
  lost?: string;
  /** Called on either of the two above once the call's channel is built. */
  changed?: () => void;
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
 * container instead of an engine exec. Each call's stdout and stderr are
 * FIFOs in the session's shared directory that the host reads, its stdin a
 * file, its status a line on the holder's stdout; the wrapper, the tag and
 * the records are the engine exec's, so `ContainerCommand` cannot tell the
 * two apart. Works only where the engine's host is this one (the shared
 * directory is a bind mount of ours). When the holder's stream breaks,
 * running calls end with `CHANNEL_LOST` (their trees are killed) and the next
 * call starts a new holder.
 */
export class SessionChannel {
  private readonly calls = new Map<string, Call>();
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
    const [probePath, spare] = await stock.take();
    fs.rmSync(spare, { force: true });
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
    const [outFifo, errFifo] = await this.stock.take();
    fs.renameSync(outFifo, `${base}.o`);
    fs.renameSync(errFifo, `${base}.e`);
    const out = openFifo(`${base}.o`);
    const err = openFifo(`${base}.e`);
    const fields = [argv[3]!, argv[4]!, argv[5]!, ...Object.entries(env).map(([name, value]) => `${name}=${value}`)];
    fs.writeFileSync(`${base}.q`, fields.join('\0') + '\0', { mode: 0o600, flag: 'wx' });
    fs.writeFileSync(`${base}.i`, stdin, { mode: 0o600, flag: 'wx' });
    const cleanup = (): void => {
      for (const suffix of ['.o', '.e', '.q', '.i']) fs.rmSync(base + suffix, { force: true });
    };
    let started: boolean;
    try {
      started = await new Promise<boolean>((opened, failed) => {
        this.calls.set(id, { tag: (env[EXEC_TAG_VAR] ?? '').replace(new RegExp(`${WRAPPER_TAG_SUFFIX}$`), ''), opened, failed });
        this.holder.write(`${id}\n`);
      });
    } catch (error) {
      out.close();
      err.close();
      throw error;
    } finally {
      // Open on both sides now (or never to be): the names have done their job.
      cleanup();
    }
    if (!started) {
      // The holder could not open the call's files: this channel cannot run commands.
      this.calls.delete(id);
      this.closed = true;
      out.close();
      err.close();
      return undefined;
    }
    return this.track(id, out, err);
  }

  /** Stops the holder (running calls are the container's to end). */
  close(): void {
    if (this.closed) return;
    this.holder.detach();
    this.broke();
  }

  private track(id: string, out: OpenFifo, err: OpenFifo): ExecChannel {
    const call = this.calls.get(id)!;
    let settle!: (exit: ChannelExit) => void;
    const exited = new Promise<ChannelExit>((resolve) => (settle = resolve));
    const timers: NodeJS.Timeout[] = [];
    const close = (): void => {
      out.close();
      err.close();
    };
    void Promise.all([out.ended, err.ended]).then(() => {
      for (const timer of timers) clearTimeout(timer);
      this.calls.delete(id);
      settle(call.lost === undefined ? { exitCode: call.status ?? null } : { exitCode: null, lost: call.lost });
    });
    let released = false;
    call.changed = () => {
      if (call.lost !== undefined) {
        void this.killTree(call.tag);
        close();
      } else if (call.status !== undefined && !released) {
        released = true;
        // The pipes end once read: the wrapper killed its command's tree before it ended. A writer
        // still there a moment later outlived a wrapper that was killed itself: kill it as the
        // wrapper would have, and read what it wrote up to the cap.
        out.release();
        err.release();
        timers.push(setTimeout(() => void this.killTree(call.tag), OUTPUT_IDLE_MS), setTimeout(close, OUTPUT_DRAIN_CAP_MS));
      }
    };
    call.changed();
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
      const call = id === undefined ? undefined : this.calls.get(id);
      if (call === undefined || word === undefined) continue;
      if (word === HOLDER_OPENED) call.opened(true);
      else if (word === HOLDER_UNSTARTED) call.opened(false);
      else if (/^\d+$/.test(word)) {
        call.status = Number(word);
        call.changed?.();
      }
    }
  }

  /** The holder's stream ended: every call in flight is lost (and killed); later calls need a new channel. */
  private broke(): void {
    if (this.ended) return;
    this.ended = this.closed = true;
    for (const call of this.calls.values()) {
      call.failed(new Error(CHANNEL_LOST_UNSTARTED));
      // A call whose status came is complete: its output drains as usual.
      if (call.status !== undefined) continue;
      call.lost = CHANNEL_LOST;
      call.changed?.();
    }
    void this.killTree(this.holderTag);
  }

  private async killTree(tag: string): Promise<void> {
    if (tag === '') return;
    try {
      await this.options.engine.killTagged(this.options.containerId, tag, 'KILL');
      if (tag !== this.holderTag) await this.options.engine.killTagged(this.options.containerId, tag + WRAPPER_TAG_SUFFIX, 'KILL');
    } catch {
      // The container is gone: so is the tree.
    }
  }
}
