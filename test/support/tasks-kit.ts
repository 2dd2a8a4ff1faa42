import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationSchema,
  type CallToolResult,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { EventEmitter } from 'node:events';
import type { DshHost } from '../../src/container/dsh-host.js';
import type { McpConnection } from '../../src/mcp/legacy/mcp-connection.js';
import { linkInProcess } from './in-process-client.js';

/** The client capability that asks for MCP tasks (2025-11-25). */
export const TASKS_CAPABILITY = { tasks: { list: {}, cancel: {} } };

/**
 * A real 1.x SDK client and the raw task requests a test sends, plus the
 * `notifications/tasks/status` it received (awaitable by status).
 */
export class TasksClient {
  readonly statuses: Task[] = [];
  private readonly events = new EventEmitter();

  constructor(readonly client: Client) {
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      this.statuses.push(notification.params as Task);
      this.events.emit('status');
    });
  }

  static async connect(transport: Transport, declareTasks = true): Promise<TasksClient> {
    const client = new Client({ name: 'tasks-test', version: '1' }, { capabilities: declareTasks ? TASKS_CAPABILITY : {} });
    const tasks = new TasksClient(client);
    await client.connect(transport);
    return tasks;
  }

  /** A task-augmented `tools/call`: the CreateTaskResult's task. */
  async start(name: string, args: Record<string, unknown>, task: Record<string, unknown> = {}): Promise<Task> {
    const created = await this.client.request({ method: 'tools/call', params: { name, arguments: args, task } }, CreateTaskResultSchema);
    return created.task;
  }

  call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return this.client.callTool({ name, arguments: args }, CallToolResultSchema) as Promise<CallToolResult>;
  }

  get(taskId: unknown): Promise<Task> {
    return this.client.request({ method: 'tasks/get', params: { taskId } as { taskId: string } }, GetTaskResultSchema);
  }

  async list(): Promise<Task[]> {
    return (await this.client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema)).tasks;
  }

  result(taskId: string): Promise<CallToolResult> {
    return this.client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema) as Promise<CallToolResult>;
  }

  cancel(taskId: string): Promise<Task> {
    return this.client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema);
  }

  /** The status notification of `taskId` with `status` (seen or future). */
  statusOf(taskId: string, status: Task['status'], timeoutMs = 20_000): Promise<Task> {
    const found = () => this.statuses.find((task) => task.taskId === taskId && task.status === status);
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = found();
        if (!hit) return;
        clearTimeout(timer);
        this.events.off('status', check);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        this.events.off('status', check);
        reject(new Error(`no ${status} status for ${taskId} within ${timeoutMs} ms (got ${JSON.stringify(this.statuses)})`));
      }, timeoutMs);
      this.events.on('status', check);
      check();
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** An McpConnection on `host` with a TasksClient over a linked in-memory pair. */
export async function connectTasks(host: DshHost, cwd: string, declareTasks = true): Promise<{ connection: McpConnection; tasks: TasksClient }> {
  const { connection, clientSide } = await linkInProcess(host, { cwd });
  return { connection, tasks: await TasksClient.connect(clientSide, declareTasks) };
}

/** The text blocks of a result, joined. */
export const textOf = (result: CallToolResult): string =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

/** The JSON-RPC error a request was answered with. */
export async function rpcError(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error('expected a JSON-RPC error, got a result');
}
