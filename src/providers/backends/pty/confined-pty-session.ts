import type { CommandConfinement, CommandLimits } from '../../exec/process/command-confinement.js';
import type { PtySession, SendOptions, SendResult } from '../../exec/terminal/terminal-service.js';

/**
 * A PTY shell opened under a confinement: it marks failed commands whose
 * output carries the denial signature and reports the limits each call
 * reached. Which confinement a shell needs is its caller's decision (the
 * planner's): a shell never changes its own.
 */
export class ConfinedPtySession implements PtySession {
  constructor(
    private readonly inner: PtySession,
    private readonly confined: CommandConfinement,
    /** The shell's resource-limit group: read after each call, released when the shell closes. */
    private readonly limits?: CommandLimits,
  ) {}

  get pid(): number {
    return this.inner.pid;
  }

  get alive(): boolean {
    return this.inner.alive;
  }

  async send(command: string, options: SendOptions): Promise<SendResult> {
    const sent = await this.inner.send(command, options);
    const limitsReached = this.limits?.takeReached() ?? [];
    const result = limitsReached.length === 0 ? sent : { ...sent, limitsReached };
    const failed = result.end.kind === 'completed' && result.end.exitCode !== 0;
    return failed && this.confined.isDenial(result.output) ? { ...result, denied: true } : result;
  }

  async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      await this.limits?.release();
    }
  }
}
