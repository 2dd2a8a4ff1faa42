import type { MarkerShell } from '../terminal/marker-shell.js';
import { newToken } from '../terminal/marker-protocol.js';
import type { PtySession, SendOptions, SendResult } from '../terminal/terminal-service.js';
import type { SharedHeldChannel } from './shared-held-channel.js';
import type { SharedShellFiles } from './shared-shell-files.js';

/** This replica's hold on the shell: the marker shell over its own channel, and the drive it belongs to. */
interface ShellHold {
  readonly shell: MarkerShell;
  readonly channel: SharedHeldChannel;
  readonly gen: string;
}

interface SharedShellSpec {
  readonly files: SharedShellFiles;
  /** Whether the shell the session's record names runs. */
  readonly runs: () => boolean;
  /** Opens this replica's channel to the recorded terminal and a marker shell over it, resynchronized or holding the `running` command (rejects when the shell is gone). */
  readonly adopt: (running?: string) => Promise<Omit<ShellHold, 'gen'>>;
  /** Kills the foreground command a replica left running in the shell. */
  readonly killForeground: () => Promise<void>;
}

/** How long a command left waiting for input gets for its output in the FIFO to be read before this replica sends it more. */
const CATCH_UP_MS = 20;

/** Lets the output a command left waiting for input made meanwhile reach its marker shell before it is sent more. */
const catchUp = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, CATCH_UP_MS));

/**
 * A shared session's persistent shell (docs/shared-sessions.md#the-persistent-shell):
 * one held terminal in the sandbox, driven by one replica at a time. Each
 * send takes the shell's lock; a replica whose drive is no longer the
 * recorded one (another replica sent since) lets go of its marker shell and
 * adopts the shell afresh: it feeds a command the previous driver left
 * waiting for input, and kills one a driver left running mid-call (that
 * call's replica died). A disposal only lets go: the shell belongs to the
 * session and ends with its sandbox, or when closed (see `close`).
 */
export class SharedShell implements PtySession {
  private hold?: ShellHold;
  private closed = false;

  constructor(
    private readonly spec: SharedShellSpec,
    started?: ShellHold,
  ) {
    this.hold = started;
  }

  get pid(): number {
    return this.hold?.channel.hostPid ?? -1;
  }

  /** The session's shell, whichever replica started it last (a restart elsewhere replaces it), runs. */
  get alive(): boolean {
    return !this.closed && this.spec.runs();
  }

  async send(command: string, options: SendOptions): Promise<SendResult> {
    const unlock = await this.spec.files.lock();
    let hold: ShellHold | undefined;
    try {
      hold = await this.take();
      if (hold === undefined) return { output: '', end: { kind: 'shell-exited', exitCode: null, signal: null }, lostPrefix: false };
      this.spec.files.writeState({ gen: hold.gen, busy: true });
      const result = await hold.shell.send(command, options);
      const running = hold.shell.runningNonce();
      if (hold.shell.alive) this.spec.files.writeState({ gen: hold.gen, busy: running !== undefined, ...(running === undefined ? {} : { running }) });
      return result;
    } finally {
      hold?.channel.detach();
      unlock();
    }
  }

  /**
   * Ends the shell (the persistent tool's idle close, a restart) when no other
   * replica drove it since this one did: that replica's clock speaks for the
   * session then, and this one only lets go.
   */
  async close(): Promise<void> {
    this.closed = true;
    const hold = this.hold;
    if (hold === undefined) return;
    const unlock = await this.spec.files.lock();
    try {
      if (this.spec.files.readState()?.gen === hold.gen) await hold.shell.close();
    } finally {
      unlock();
      this.release();
    }
  }

  /** Lets go of the shell: it runs on for the session (a disposal, a SIGTERM). */
  async letGo(): Promise<void> {
    this.closed = true;
    this.release();
  }

  /** This replica's hold, current and attached (under the lock); undefined when the shell could not be adopted. */
  private async take(): Promise<ShellHold | undefined> {
    const state = this.spec.files.readState();
    try {
      const hold = this.hold;
      if (hold !== undefined && hold.shell.alive && state?.gen === hold.gen) {
        hold.channel.attach();
        if (hold.shell.commandRunning) await catchUp();
        else await hold.shell.resync();
        return hold;
      }
      this.release();
      // A call cut short (its replica died during it) is killed; a command left waiting for input is fed by this one.
      if (state?.busy === true && state.running === undefined) await this.spec.killForeground();
      const adopted = { ...(await this.spec.adopt(state?.running)), gen: newToken() };
      if (state?.running !== undefined) await catchUp();
      this.hold = adopted;
      return adopted;
    } catch {
      // The shell is gone (or answered no more, and was killed): the next call opens a new one.
      this.closed = true;
      this.release();
      return undefined;
    }
  }

  private release(): void {
    this.hold?.channel.release();
    this.hold = undefined;
  }
}
