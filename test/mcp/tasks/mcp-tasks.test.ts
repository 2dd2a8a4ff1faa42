// MCP tasks (2025-11-25) over the task runtime, in process: a real host with
// real bash, a real 1.x SDK client over a linked in-memory pair.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../../src/container/create-host.js';
import type { DshHost } from '../../../src/container/dsh-host.js';
import { MAX_TASK_TTL_MS } from '../../../src/mcp/tasks/mcp-tasks-wire.js';
import { localEnvironment } from '../../../src/plugins/local.environment.js';
import { processesWith, uniqueSleep, waitUntil } from '../../support/process-table.js';
import { connectTasks, rpcError, textOf } from '../../support/tasks-kit.js';

let dir: string;
let host: DshHost;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-mcp-tasks-'));
  host = await createHost(...localEnvironment({ workspace: dir }));
});

afterAll(async () => {
  await host.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('what each client is offered', () => {
  it('a client that declares tasks gets the tasks capability and bash as an optional task; task_list is not one', async () => {
    const { connection, tasks } = await connectTasks(host, dir);
    try {
      expect(tasks.client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const { tools } = await tasks.client.listTools();
      expect(tools.find((tool) => tool.name === 'bash')?.execution).toEqual({ taskSupport: 'optional' });
      expect(tools.find((tool) => tool.name === 'task_list')?.execution).toBeUndefined();
    } finally {
      await connection.close();
    }
  });

  it('a client that does not declare tasks sees no capability, no execution field, no tasks/* methods, and its task parameter is ignored', async () => {
    const { connection, tasks } = await connectTasks(host, dir, false);
    try {
      expect(tasks.client.getServerCapabilities()).toEqual({ tools: {}, logging: {}, resources: {} });
      const { tools } = await tasks.client.listTools();
      expect(tools.every((tool) => tool.execution === undefined)).toBe(true);
      // A plain answer, as today: the call ran in the foreground.
      const answered = await tasks.client.request(
        { method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo plain', description: 'plain' }, task: { ttl: 1000 } } },
        (await import('@modelcontextprotocol/sdk/types.js')).CallToolResultSchema,
      );
      expect(textOf(answered as never)).toContain('plain');
      expect((answered as { task?: unknown }).task).toBeUndefined();
      // The 1.x client refuses to send tasks/* without the capability; a raw request shows the server's answer.
      const raw = tasks.client as unknown as { _capabilities: object };
      raw._capabilities = { tasks: {} };
      expect(await rpcError(tasks.list())).toMatchObject({ code: -32601 });
    } finally {
      await connection.close();
    }
  });
});

describe('a task-augmented bash call', () => {
  it('creates a task, polls to completion, and tasks/result carries the output and the exit status (the same every time)', async () => {
    const { connection, tasks } = await connectTasks(host, dir);
    try {
      const task = await tasks.start('bash', { command: 'echo one; sleep 0.3; echo two', description: 'count' }, { ttl: 60_000 });
      expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 1000 });
      expect(task.taskId).toMatch(/^bash-\d+$/);
      expect(Date.parse(task.createdAt)).not.toBeNaN();
      const done = await tasks.statusOf(task.taskId, 'completed');
      expect(done.statusMessage).toBe('exit code: 0');
      expect(await tasks.get(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'completed' });
      const result = await tasks.result(task.taskId);
      expect(textOf(result)).toBe('one\ntwo\n[status: completed, exit code: 0]');
      expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId: task.taskId });
      expect(textOf(await tasks.result(task.taskId))).toBe(textOf(result));
    } finally {
      await connection.close();
    }
  });

  it('tasks/result blocks until the task ends; a non-zero exit is a failed task', async () => {
    const { connection, tasks } = await connectTasks(host, dir);
    try {
      const task = await tasks.start('bash', { command: 'sleep 0.5; echo late; exit 3', description: 'fail late' });
      const result = await tasks.result(task.taskId);
      expect(textOf(result)).toBe('late\n[status: failed, exit code: 3]');
      expect(await tasks.get(task.taskId)).toMatchObject({ status: 'failed', statusMessage: 'exit code: 3' });
    } finally {
      await connection.close();
    }
  });

  it('the 1.x SDK client\'s own task stream (callToolStream) runs it end to end', async () => {
    const { connection, tasks } = await connectTasks(host, dir);
    try {
      await tasks.client.listTools();
      const kinds: string[] = [];
      let final = '';
      for await (const message of tasks.client.experimental.tasks.callToolStream({ name: 'bash', arguments: { command: 'echo streamed', description: 'stream' } })) {
        kinds.push(message.type);
        if (message.type === 'result') final = textOf(message.result as never);
      }
      expect(kinds[0]).toBe('taskCreated');
      expect(kinds[kinds.length - 1]).toBe('result');
      expect(final).toBe('streamed\n[status: completed, exit code: 0]');
    } finally {
      await connection.close();
    }
  });
});

describe('both views show the same task', () => {
  it('task_list and tasks/list agree; task_kill reads as cancelled in tasks/get and in the status notification', async () => {
    const { connection, tasks } = await connectTasks(host, dir);
    const sleep = uniqueSleep();
    try {
      const task = await tasks.start('bash', { command: `sleep ${sleep}`, description: 'sleep' });
      expect(textOf(await tasks.call('task_list', {}))).toContain(`${task.taskId}`);
      expect((await tasks.list()).map((listed) => [listed.taskId, listed.status])).toContainEqual([task.taskId, 'working']);
      await waitUntil(() => processesWith(sleep).length > 0, 'the sleep runs');
      expect(textOf(await tasks.call('task_kill', { task_id: task.taskId }))).toContain(task.taskId);
      expect((await tasks.statusOf(task.taskId, 'cancelled')).taskId).toBe(task.taskId);
      expect(await tasks.get(task.taskId)).toMatchObject({ status: 'cancelled' });
      expect(processesWith(sleep)).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it('tasks/cancel kills the process before it answers; task_output then reports the task killed', async () => {
    const { connection, tasks } = await connectTasks(host, dir);
    const sleep = uniqueSleep();
    try {
      const task = await tasks.start('bash', { command: `echo started; sleep ${sleep}`, description: 'sleep' });
      await waitUntil(() => processesWith(sleep).length > 0, 'the sleep runs');
      const cancelled = await tasks.cancel(task.taskId);
      expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
      expect(processesWith(sleep)).toEqual([]);
      expect(textOf(await tasks.call('task_output', { task_id: task.taskId }))).toMatch(/\[status: killed/);
      const again = await rpcError(tasks.cancel(task.taskId));
      expect(again).toEqual({ code: -32602, message: "MCP error -32602: Cannot cancel task: already in terminal status 'cancelled'" });
    } finally {
      await connection.close();
    }
  });

  it('a plain run_in_background call is a task too: its result names it, tasks/result reads it', async () => {
    const { connection, tasks } = await connectTasks(host, dir);
    try {
      const started = await tasks.call('bash', { command: 'echo behind', description: 'behind', run_in_background: true });
      const taskId = (started._meta?.['io.modelcontextprotocol/related-task'] as { taskId: string }).taskId;
      expect(textOf(started)).toBe(`started background task ${taskId}`);
      expect(textOf(await tasks.result(taskId))).toBe('behind\n[status: completed, exit code: 0]');
    } finally {
      await connection.close();
    }
  });
});

describe('bad input gets the exact JSON-RPC error', () => {
  let close: () => Promise<void>;
  let tasks: Awaited<ReturnType<typeof connectTasks>>['tasks'];
  beforeAll(async () => {
    const connected = await connectTasks(host, dir);
    tasks = connected.tasks;
    close = () => connected.connection.close();
  });
  afterAll(() => close());

  it('an unknown task id: -32602 for get, result and cancel alike', async () => {
    for (const request of [tasks.get('bash-9999'), tasks.result('bash-9999'), tasks.cancel('bash-9999')]) {
      expect(await rpcError(request)).toEqual({ code: -32602, message: 'MCP error -32602: Failed to retrieve task: Task not found: "bash-9999"' });
    }
    expect(await rpcError(tasks.get(42))).toEqual({ code: -32602, message: 'MCP error -32602: Invalid params for tasks/get: taskId must be a non-empty string' });
  });

  it('a ttl that is negative or not a number: -32602 and nothing runs; a huge one is clamped', async () => {
    const before = (await tasks.list()).length;
    expect(await rpcError(tasks.start('bash', { command: 'echo no', description: 'no' }, { ttl: -5 }))).toEqual({
      code: -32602,
      message: 'MCP error -32602: task.ttl must be a non-negative number of milliseconds, got -5',
    });
    expect(await rpcError(tasks.start('bash', { command: 'echo no', description: 'no' }, { ttl: 'soon' }))).toMatchObject({ code: -32602 });
    expect(await tasks.list()).toHaveLength(before);
    expect((await tasks.start('bash', { command: 'true', description: 'nothing' }, { ttl: 1e15 })).ttl).toBe(MAX_TASK_TTL_MS);
  });

  it('a task-augmented call of a tool that cannot run in the background: -32601', async () => {
    expect(await rpcError(tasks.start('task_list', {}))).toEqual({
      code: -32601,
      message: 'MCP error -32601: Tool "task_list" does not support task-augmented execution',
    });
  });

  it('a call refused before it started is a failed task whose result is the refusal', async () => {
    const task = await tasks.start('bash', { command: 'echo x', description: 'x', bogus: 1 });
    expect(task.status).toBe('failed');
    const result = await tasks.result(task.taskId);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Error: unknown argument "bogus"/);
    expect(await rpcError(tasks.cancel(task.taskId))).toMatchObject({ code: -32602 });
  });

  it('a cursor the server never handed out: -32602', async () => {
    const request = tasks.client.request({ method: 'tasks/list', params: { cursor: 'x' } }, (await import('@modelcontextprotocol/sdk/types.js')).ListTasksResultSchema);
    expect(await rpcError(request)).toEqual({ code: -32602, message: 'MCP error -32602: Invalid params for tasks/list: unknown cursor "x"' });
  });
});

describe('a promoted timeout', () => {
  it('becomes a task the client can follow: related-task in the result, completed status notification, tasks/result', async () => {
    const promoting = await createHost(...localEnvironment({ workspace: dir, executor: { timeoutMs: 300, graceMs: 200 } }));
    const { connection, tasks } = await connectTasks(promoting, dir);
    try {
      const moved = await tasks.call('bash', { command: 'sleep 0.8; echo finally', description: 'slow' });
      const taskId = (moved._meta?.['io.modelcontextprotocol/related-task'] as { taskId: string }).taskId;
      expect(textOf(moved)).toContain(`moved to background task ${taskId}`);
      await tasks.statusOf(taskId, 'completed');
      expect(textOf(await tasks.result(taskId))).toBe('finally\n[status: completed, exit code: 0]');
    } finally {
      await connection.close();
      await promoting.dispose();
    }
  });
});
