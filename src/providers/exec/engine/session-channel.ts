import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EXEC_TAG_VAR, type ContainerEngine, type ExecChannel, type ExecExit } from './container-engine.js';
import { CHANNEL_HOLDER, HOLDER_NAME, HOLDER_NATIVE, HOLDER_OPENED, HOLDER_READY, HOLDER_UNSTARTED } from './channel-holder.js';
import { EXEC_WRAPPER, WRAPPER_TAG_SUFFIX } from './container-exec-wrapper.js';
import { FifoStock } from './fifo-stock.js';
import { fifoWriter, firstLine, openFifo, type OpenFifo } from './fifo-reader.js';
import { callFitsHelper, placeCallHelper } from './native/call-helper.js';

/** How long a holder may take to say it is ready (a call never waits for it: it runs as an engine exec meanwhile). */
const HOLDER_START_MS = 15_000;
/** How long a call waits for its subshell to open its files before it asks whether anyone ever will. */
const OPEN_CHECK_MS = 30_000;
/** How long a call's output may stay open after its status arrived before what still holds it is killed. */
const OUTPUT_IDLE_MS = 200;
/** The longest a call's output may stay open after its status, however much such a process writes. */
const OUTPUT_DRAIN_CAP_MS = 5000;

/** What the model sees when the subshell running its command died before it reported the status (the command is killed). */
const CHANNEL_LOST = "the session's channel into its container broke while the command ran; the command was stopped";
/** What a caller gets when the holder went away after it was handed the call and nothing started it. */
const CHANNEL_LOST_UNSTARTED = "the session's channel into its container broke before the command could start";

/** An exec's end as the channel reports it: `lost` when the call's subshell died without a status. */
export interface ChannelExit extends ExecExit {
  readonly lost?: string;
}

export interface SessionChannelOptions {
  readonly engine: ContainerEngine;
  readonly containerId: string;
  /** A host directory the container sees at the same path (the session's shared directory). */
  readonly sharedDir: string;
  /**
   * The channel's own directory in it (default `ch`). Each server serving a
   * shared session names its own (`ch-<instance>`): each runs its holder, and
   * one's `ready` and `ctl` never meet another's.
   */
  readonly channelDir?: string;
  readonly user?: string;
  /** Calls start through the native call helper where the container runs it (`channel: true`; not `'bash'`). */
  readonly nativeHelper?: boolean;
}

/** A started call's FIFOs, this process's ends of them, and their names. */
interface CallFifos {
  readonly out: OpenFifo;
  readonly err: OpenFifo;
  readonly status: OpenFifo;
  readonly input: { close(): void; readonly closed: Promise<void> };
  readonly names: readonly string[];
}

/** A call handed to the holder whose subshell has not opened its files yet. */
interface Pending {
  /** Drops our own hold on the call's status FIFO: it ends at once unless a subshell opened it. */
  readonly askOpened: () => void;
}

/**
 * One holder per session container (`CHANNEL_HOLDER`, started by one engine
 * exec) through which one-shot calls start: a call costs a fork inside the
 * container instead of an engine exec. The host names each call in the
 * holder's `ctl` FIFO; the call's stdin, stdout, stderr and status are FIFOs
 * of its own in the session's shared directory; the wrapper, the tag and
 * the records are the engine exec's, so `ContainerCommand` cannot tell the
 * two apart. Nothing goes through the engine once the holder runs: a call
 * starts and ends while the API server is away. Works only where the
 * container sees this host's session directory, which the holder proves at
 * start. A holder that died is found at the next write into `ctl`.
 */
export class SessionChannel {
  private readonly pending = new Set<Pending>();
  private closed = false;

  private constructor(
    private readonly options: SessionChannelOptions,
    private readonly dir: string,
    private readonly stock: FifoStock,
    private readonly holder: ExecChannel,
    private readonly ctl: number,
    /** Whether the holder runs calls through the native call helper (it said so when ready). */
    readonly native: boolean,
  ) {
    holder.stdout.resume();
    holder.stderr.resume();
    // The stream may end while the holder lives on (it does not use it): ask the holder itself.
    void holder.exited.then(() => this.send('\n'));
  }

  /**
   * Starts the holder; resolves once it wrote `ready` into a FIFO the host is
   * reading, which proves the container and this process see the same
   * directory on the same machine. Else (the holder cannot reach it, the
   * directory is another machine's, no answer in time) undefined: use engine execs.
   */
  static async open(options: SessionChannelOptions): Promise<SessionChannel | undefined> {
    const dir = path.join(options.sharedDir, options.channelDir ?? 'ch');
    fs.mkdirSync(dir, { mode: 0o700, recursive: true });
    const stock = new FifoStock(dir);
    const [readyFifo, ctlFifo] = await stock.take(2);
    const readyPath = path.join(dir, 'ready');
    const ctlPath = path.join(dir, 'ctl');
    fs.renameSync(readyFifo!, readyPath);
    fs.renameSync(ctlFifo!, ctlPath);
    const probe = openFifo(readyPath);
    // Read-write until the holder opened it for reading: its open must not wait for us.
    const ctlHold = fs.openSync(ctlPath, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    const holderTag = randomBytes(8).toString('hex');
    const helper = options.nativeHelper === true ? placeCallHelper(dir) : undefined;
    let holder: ExecChannel | undefined;
    try {
      holder = await options.engine.exec(options.containerId, {
        argv: ['bash', '-c', CHANNEL_HOLDER, HOLDER_NAME, dir, EXEC_WRAPPER, helper ?? ''],
        env: { [EXEC_TAG_VAR]: holderTag },
        workdir: '/',
        tty: false,
        stdin: false,
        ...(options.user === undefined ? {} : { user: options.user }),
      });
      const ready = await firstLine(probe.stream, holder.exited, HOLDER_START_MS);
      // Write-only from now on: a holder that died is EPIPE on the next write, not a silent wait.
      if (ready === HOLDER_READY || ready === `${HOLDER_READY} ${HOLDER_NATIVE}`) {
        const ctl = fs.openSync(ctlPath, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
        return new SessionChannel(options, dir, stock, holder, ctl, ready !== HOLDER_READY);
      }
    } finally {
      probe.close();
      fs.closeSync(ctlHold);
      fs.rmSync(readyPath, { force: true });
      fs.rmSync(ctlPath, { force: true });
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
   * channel, or undefined when the holder did not take the call (gone, busy,
   * or it could not open the call's files): the command never ran, start it
   * with an engine exec. Rejects when the holder took the call and went away
   * before anything started it.
   */
  async run(argv: readonly string[], env: Readonly<Record<string, string>>, stdin: string): Promise<ExecChannel | undefined> {
    if (this.closed) return undefined;
    if (argv[2] !== EXEC_WRAPPER || argv.length !== 6) throw new Error('the channel runs the one-shot wrapper only');
    const id = randomBytes(16).toString('hex');
    const base = path.join(this.dir, id);
    // No FIFOs (mkfifo failed): the call goes as an engine exec.
    const fifos = await this.stock.take(4).catch(() => undefined);
    if (fifos === undefined) return undefined;
    const names = ['.o', '.e', '.s', '.i'].map((suffix, i) => {
      fs.renameSync(fifos[i]!, base + suffix);
      return base + suffix;
    });
    const [out, err, status] = names.slice(0, 3).map((name) => openFifo(name)) as [OpenFifo, OpenFifo, OpenFifo];
    const input = fifoWriter(`${base}.i`, stdin);
    const fields = [argv[3]!, argv[4]!, argv[5]!, ...Object.entries(env).map(([name, value]) => `${name}=${value}`)];
    fs.writeFileSync(`${base}.q`, fields.join('\0') + '\0', { mode: 0o600, flag: 'wx' });
    const closeAll = (): void => [out, err, status, input].forEach((fifo) => fifo.close());
    const removeNames = (): void => [...names, `${base}.q`].forEach((name) => fs.rmSync(name, { force: true }));
    // The command's tag beside the id: a holder whose host went away kills what still runs by it.
    const tag = (env[EXEC_TAG_VAR] ?? '').slice(0, -WRAPPER_TAG_SUFFIX.length);
    const native = this.native && callFitsHelper(argv[3]!, argv[4]!, env) ? 1 : 0;
    if (!this.send(`${id} ${tag} ${native}\n`)) {
      closeAll();
      removeNames();
      return undefined;
    }
    const pending: Pending = { askOpened: () => status.release() };
    this.pending.add(pending);
    const timer = setTimeout(pending.askOpened, OPEN_CHECK_MS);
    // `+` once the subshell opened the call's files, then the wrapper's status: one reader for both.
    let statusText = '';
    let first: string | undefined;
    try {
      first = await new Promise<string | undefined>((resolve) => {
        status.stream.on('data', (chunk: Buffer) => {
          statusText += chunk.toString('latin1');
          const newline = statusText.indexOf('\n');
          if (newline >= 0) resolve(statusText.slice(0, newline));
        });
        void status.ended.then(() => resolve(undefined));
      });
    } finally {
      clearTimeout(timer);
      this.pending.delete(pending);
      // Read (or never to be): the request has done its job.
      fs.rmSync(`${base}.q`, { force: true });
    }
    // The FIFOs' names stay until the call ended: the stock takes them back then.
    if (first === HOLDER_OPENED) return this.track(env, { out, err, status, input, names }, () => statusText);
    closeAll();
    removeNames();
    // `!`: this holder cannot open a call's files; it will not start any.
    if (first === HOLDER_UNSTARTED) {
      this.close();
      return undefined;
    }
    throw new Error(CHANNEL_LOST_UNSTARTED);
  }

  /** Stops the holder (it reads the end of `ctl`); calls that started run to their end. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stock.close();
    fs.closeSync(this.ctl);
    this.holder.detach();
    for (const pending of this.pending) pending.askOpened();
  }

  /** Resolves once nothing of this channel writes into its directory any more (a FIFO batch still being made). */
  settled(): Promise<void> {
    return this.stock.settled();
  }

  /** Writes into `ctl`; false (and the channel closed, for a holder that died) when the holder cannot take it. */
  private send(line: string): boolean {
    if (this.closed) return false;
    try {
      fs.writeSync(this.ctl, line);
      return true;
    } catch (error) {
      // EAGAIN: the holder is behind by a whole pipe of ids; this call goes around it.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') this.close();
      return false;
    }
  }

  /**
   * The call's end: its status FIFO ends once the subshell that ran the
   * wrapper exited, with the wrapper's status in it, or without one when
   * that subshell was killed (then the command is killed too, as lost).
   */
  private track(env: Readonly<Record<string, string>>, fifos: CallFifos, statusText: () => string): ExecChannel {
    const { out, err, status, input } = fifos;
    const tag = (env[EXEC_TAG_VAR] ?? '').slice(0, -WRAPPER_TAG_SUFFIX.length);
    let settle!: (exit: ChannelExit) => void;
    const exited = new Promise<ChannelExit>((resolve) => (settle = resolve));
    const timers: NodeJS.Timeout[] = [];
    const close = (): void => [out, err, status].forEach((fifo) => fifo.close());
    // The subshell holds its end now: the status ends when it exits.
    status.release();
    let code: number | null = null;
    let lost: string | undefined;
    void status.ended.then(() => {
      const reported = /^\+\n(\d+)\n$/.exec(statusText());
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
      input.close();
      settle(lost === undefined ? { exitCode: code } : { exitCode: null, lost });
    });
    // Once this process let go of all four, the stock keeps those nobody else holds.
    void Promise.all([out.closed, err.closed, status.closed, input.closed]).then(() => this.stock.giveBack(fifos.names));
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
