import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../../src/container/create-host.js';
import type { DshHost } from '../../../src/container/dsh-host.js';
import type { McpConnection } from '../../../src/mcp/legacy/mcp-connection.js';
import { localEnvironment } from '../../../src/plugins/local.environment.js';
import { connectTasks, type TasksClient } from '../../support/tasks-kit.js';

/** Two sessions of one server (as two HTTP sessions are), each with a client that declared tasks. */
export interface TasksPair {
  readonly host: DshHost;
  readonly owner: { connection: McpConnection; tasks: TasksClient };
  readonly intruder: { connection: McpConnection; tasks: TasksClient };
  dispose(): Promise<void>;
}

export async function tasksPair(): Promise<TasksPair> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-tasks-fence-'));
  const host = await createHost(...localEnvironment({ workspace: dir }));
  const owner = await connectTasks(host, dir);
  const intruder = await connectTasks(host, dir);
  return {
    host,
    owner,
    intruder,
    async dispose() {
      await Promise.all([owner.connection.close(), intruder.connection.close()]);
      await host.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What an unknown id gets: a foreign one must read exactly the same. */
export const notFound = (taskId: string) => ({ code: -32602, message: `MCP error -32602: Failed to retrieve task: Task not found: ${JSON.stringify(taskId)}` });
