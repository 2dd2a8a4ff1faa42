import type { SessionContext } from '../../core/tool-contract.js';
import type { ConfinedCommand, Confinement } from '../sandbox/confinement.js';
import type { SandboxMode } from '../shell/shell-executor.js';
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
  ) {}

  get pid(): number {
    return this.inner.pid;
  }

  get alive(): boolean {
    return this.inner.alive;
  }

  async send(command: string, options: SendOptions): Promise<SendResult> {
    const result = await this.inner.send(command, options);
    const confined = this.confined;
    const failed = result.end.kind === 'completed' && result.end.exitCode !== 0;
    return confined && failed && confined.isDenial(result.output) ? { ...result, deniedUnder: confined.mode } : result;
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  confinementChange(): SandboxMode | undefined {
    const now = this.confinement.forSession(this.session);
    if (now?.key === this.confined?.key) return undefined;
    return now?.mode ?? 'danger-full-access';
  }
}
