import { createHash } from 'node:crypto';
import type { ServiceIdentifier } from 'inversify';
import type { SessionContext } from '../../core/tool-contract.js';

/*
 * Where MCP tasks (`tasks/get` and its kin, both protocol eras) are recorded
 * so that every replica serving a shared session finds them
 * (docs/shared-sessions.md#mcp-tasks). Bound only with `--shared-sessions`;
 * without it an MCP task lives in its server's memory, as before. A record
 * is named by the hash of the MCP task id, never the id (a 2026-07-28 task
 * id is bearer-like), and holds no output: the result is read again from
 * the task runtime's files.
 */

/** A record's name: the hex SHA-256 of the MCP task id, then what it is (`task`, `result`). */
export function mcpTaskRecordName(taskId: string, part: 'task' | 'result'): string {
  return `${createHash('sha256').update(taskId).digest('hex')}.${part}`;
}

export interface McpTaskStore {
  /** Records `value` under `name` in the session's shared directory (replacing one there). */
  put(session: SessionContext, name: string, value: unknown): Promise<void>;
  /** Records `value` under `name` unless a record is there already; resolves with the one kept and whether this call wrote it. */
  putOnce<T>(session: SessionContext, name: string, value: T): Promise<{ readonly kept: T; readonly written: boolean }>;
  /** The record `name` of the session's shared directory. */
  get<T>(session: SessionContext, name: string): Promise<T | undefined>;
  /** The record `name` in whichever shared session's directory holds it. */
  find<T>(name: string): Promise<T | undefined>;
}

export const McpTaskStore: ServiceIdentifier<McpTaskStore> = Symbol.for('dsh.McpTaskStore');
