import type { CallToolResult } from '@modelcontextprotocol/server';
import type { HostSession } from '../../container/host-session.js';

/** A task as this replica knows it: handed over here, or found in its shared record (then without a session until used). */
export interface ModernTaskEntry {
  readonly caller: string | undefined;
  readonly handle: string;
  readonly handleNotice?: string;
  /** The task runtime's id (`bash-N`), the one `task_output` / `task_kill` take. */
  readonly runtimeId: string;
  /** The host session the task was last seen in. */
  session: HostSession | undefined;
  /** The completed task's CallToolResult, read once (the read consumes the output) and kept. */
  result?: Promise<CallToolResult>;
}
