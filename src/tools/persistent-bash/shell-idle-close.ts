import { sessionIdleFor } from '../../core/session-activity.js';
import type { SessionContext } from '../../core/tool-contract.js';

/*
 * The one owner of the persistent shell's idle close (`persistent.idleCloseMs`),
 * embedded or served. The shell's own calls are what the tool sees; a host
 * that knows more about a session (the MCP server: a request in flight, an
 * open event stream, a running background task, an approval question
 * waiting for its answer) says so through `reportSessionActivity` (core/session-activity.ts), and the
 * shell is only closed once both have been idle for the whole interval.
 */

/** The notice the session's next result carries after its persistent shell was closed for idleness. */
export function idleClosedNotice(idleMs: number): string {
  return `[session idle: its shell was closed after ${Number((idleMs / 1000).toFixed(1))} s without a request (persistent.idleCloseMs); cwd, variables and jobs of that shell are gone, the next command starts a fresh shell in the workspace; background tasks and their output are kept]`;
}

/**
 * One shell's idle clock: `arm()` when the shell's last call settled,
 * `disarm()` when a call comes; after `idleMs` of the shell and its session
 * both idle it runs `close`. While the session is busy it looks again every
 * quarter interval (100 ms to 15 s): a busy session's end is not an event
 * the tool hears. The timer is unreferenced: it never holds the process.
 */
export class ShellIdleClock {
  private timer: NodeJS.Timeout | undefined;
  private lastCall = 0;

  constructor(
    private readonly idleMs: number,
    private readonly session: SessionContext,
    private readonly close: () => void,
  ) {}

  arm(): void {
    if (this.idleMs === 0) return;
    this.lastCall = performance.now();
    this.schedule(this.idleMs);
  }

  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), ms);
    this.timer.unref();
  }

  private check(): void {
    this.timer = undefined;
    const hostIdle = sessionIdleFor(this.session);
    if (hostIdle === undefined) return this.schedule(Math.min(15_000, Math.max(100, this.idleMs / 4)));
    const idle = Math.min(performance.now() - this.lastCall, hostIdle);
    if (idle >= this.idleMs) return this.close();
    this.schedule(this.idleMs - idle);
  }
}
