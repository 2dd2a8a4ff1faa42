import type { SessionContext } from '../../core/tool-contract.js';
import type { LimitGroup } from '../sandbox/cgroup-limiter.js';
import type { ConfinedCommand, Confinement } from '../sandbox/confinement.js';
import type { SandboxMode } from '../sandbox/sandbox-mode.js';
import type { PtySession, SendOptions, SendResult } from './terminal-service.js';

/**
 * A PTY shell opened under a `Confinement`: it remembers the confinement it
 * started with (undefined: unconfined), marks failed commands whose output
 * carries the denial signature, and tells when the session now needs a
 * different confinement (a changed mode: the shell must be replaced).
 */
export class ConfinedPtySession implements PtySession {
  constructor(
    private readonly inner: PtySession,
    private readonly confinement: Confinement,
    private readonly session: SessionContext | undefined,
    private readonly confined: ConfinedCommand | undefined,
    /** The shell's resource-limit group: read after each call, released when the shell closes. */
    private readonly limits?: LimitGroup,
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
    const confined = this.confined;
    const failed = result.end.kind === 'completed' && result.end.exitCode !== 0;
    return confined && failed && confined.isDenial(result.output) ? { ...result, deniedUnder: confined.mode } : result;
  }

  async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      await this.limits?.release();
    }
  }

  confinementChange(): SandboxMode | undefined {
    const now = this.confinement.forSession(this.session);
    if (now?.key === this.confined?.key) return undefined;
    return now?.mode ?? 'danger-full-access';
  }
}
