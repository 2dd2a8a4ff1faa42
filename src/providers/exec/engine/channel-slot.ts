import { SessionChannel, type SessionChannelOptions } from './session-channel.js';

/** Holders that may fail to start (or break) in a row before a container's calls stay engine execs. */
const MAX_FAILURES = 3;

/**
 * A session container's channel (`SessionChannel`), started on its first
 * call and restarted when it breaks. A call never waits for a holder to
 * start: until one is ready it runs as an engine exec, so a new session's
 * first call costs what it did without the channel.
 */
export class ChannelSlot {
  private channel: SessionChannel | undefined;
  private starting: Promise<void> | undefined;
  private failures = 0;
  private closed = false;

  constructor(private readonly options: SessionChannelOptions) {}

  /** The ready channel, or undefined (run an engine exec); starts or restarts the holder as needed. */
  current(): SessionChannel | undefined {
    if (this.closed) return undefined;
    if (this.channel?.usable) return this.channel;
    if (this.channel !== undefined) {
      this.channel.close();
      this.channel = undefined;
      this.failures++;
    }
    if (this.starting === undefined && this.failures < MAX_FAILURES) this.starting = this.start();
    return undefined;
  }

  /** Whether the channel is (or, once it started, became) ready; starts it if needed. */
  async ready(): Promise<boolean> {
    if (this.current() !== undefined) return true;
    await this.starting;
    return this.current() !== undefined;
  }

  /**
   * Stops the holder; later calls are engine execs. Resolves once a start
   * still under way ended and nothing of the channel writes into its
   * directory any more, so the directory can be removed.
   */
  async close(): Promise<void> {
    this.closed = true;
    const channel = this.channel;
    this.channel = undefined;
    channel?.close();
    await this.starting;
    await channel?.settled();
  }

  private async start(): Promise<void> {
    try {
      const channel = await SessionChannel.open(this.options);
      if (channel === undefined) this.failures = MAX_FAILURES;
      else if (this.closed) channel.close();
      else this.channel = channel;
    } catch {
      this.failures++;
    } finally {
      this.starting = undefined;
    }
  }
}
