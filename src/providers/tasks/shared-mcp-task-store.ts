import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { SessionContext } from '../../core/tool-contract.js';
import { listSharedContainers } from '../exec/engine/shared-containers.js';
import type { SessionContainers } from '../exec/engine/session-containers.js';
import type { McpTaskStore } from './mcp-task-store.js';

/** The session directory's sub-directory of MCP task records (read-only inside the container, written by the replicas). */
const MCP_TASKS_DIR = 'mcp-tasks';
const RECORD_NAME = /^[0-9a-f]{64}\.(?:task|result)$/;

/**
 * MCP task records as files of the session's shared directory
 * (`<dir>/mcp-tasks/<name>.json`, docs/shared-sessions.md#mcp-tasks): every
 * replica that serves the session sees that directory (the shared tasks'
 * own condition), and the records go with the directory when the session
 * ends. A record found by name alone is looked for in the directory of
 * every shared container (or pod) the engine lists.
 */
export class SharedMcpTaskStore implements McpTaskStore {
  constructor(private readonly containers: SessionContainers) {}

  async put(session: SessionContext, name: string, value: unknown): Promise<void> {
    const target = this.file(await this.dirFor(session), name);
    const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temporary, JSON.stringify(value), { mode: 0o600 });
    renameSync(temporary, target);
  }

  async putOnce<T>(session: SessionContext, name: string, value: T): Promise<{ readonly kept: T; readonly written: boolean }> {
    const target = this.file(await this.dirFor(session), name);
    try {
      writeFileSync(target, JSON.stringify(value), { flag: 'wx', mode: 0o600 });
      return { kept: value, written: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const kept = readRecord<T>(target);
    if (kept === undefined) throw new Error(`MCP task record ${name} is unreadable`);
    return { kept, written: false };
  }

  async get<T>(session: SessionContext, name: string): Promise<T | undefined> {
    const dir = await this.containers.sessionDirOf(session);
    return dir === undefined ? undefined : readRecord<T>(this.file(dir, name));
  }

  async find<T>(name: string): Promise<T | undefined> {
    this.file('', name);
    const seen = new Set<string>();
    for (const container of await listSharedContainers(this.containers.engine)) {
      if (container.dir === '' || seen.has(container.dir)) continue;
      seen.add(container.dir);
      const value = readRecord<T>(this.file(container.dir, name));
      if (value !== undefined) return value;
    }
    return undefined;
  }

  private async dirFor(session: SessionContext): Promise<string> {
    const dir = await this.containers.sessionDirOf(session);
    if (dir === undefined) throw new Error(`session ${session.id} has no shared directory to record its MCP tasks in`);
    mkdirSync(path.join(dir, MCP_TASKS_DIR), { recursive: true, mode: 0o700 });
    return dir;
  }

  /** A record's path; only names `mcpTaskRecordName` makes are taken. */
  private file(dir: string, name: string): string {
    if (!RECORD_NAME.test(name)) throw new Error(`invalid MCP task record name ${JSON.stringify(name)}`);
    return path.join(dir, MCP_TASKS_DIR, `${name}.json`);
  }
}

function readRecord<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
