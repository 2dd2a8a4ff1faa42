import type { SessionContext } from '../../../core/tool-contract.js';
import type { PtySession } from './terminal-service.js';

/**
 * One session's PTYs, kept in its scope by the terminal service: the open
 * ones by PTY id, and the opens still in flight (a close waits for them, so
 * a shell that was starting when its session closed is gone too).
 */
export class OwnerPtys {
  private readonly ptys = new Map<string, PtySession>();
  private readonly opening = new Set<Promise<unknown>>();
  private closing?: Promise<void>;

  constructor(readonly owner: SessionContext) {}

  /** Closed with the session (or the service): an open that lands now closes its shell instead. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  get(id: string): PtySession | undefined {
    return this.ptys.get(id);
  }

  add(id: string, pty: PtySession): void {
    this.ptys.set(id, pty);
  }

  /** Forgets the PTY (its caller closes it); undefined when this session has no such id. */
  take(id: string): PtySession | undefined {
    const pty = this.ptys.get(id);
    this.ptys.delete(id);
    return pty;
  }

  /** Tracks an open until it settled (its result or its cleanup). */
  track(opening: Promise<unknown>): void {
    const settled = opening.catch(() => undefined);
    this.opening.add(settled);
    void settled.then(() => this.opening.delete(settled));
  }

  /** Closes (or lets go of, where it outlives this process) every PTY now held and waits for the opens in flight (which close their own). */
  async closeAll(): Promise<void> {
    const held = [...this.ptys.values()];
    this.ptys.clear();
    await Promise.all([...held.map((pty) => (pty.letGo ? pty.letGo() : pty.close())), ...this.opening]);
  }

  /** Closes the session's PTYs for good: later opens for it close what they made. */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }
}
