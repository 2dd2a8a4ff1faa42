// Issue 22 item 3 end to end: the built server, a real 1.x SDK client that
// declares tasks, over stdio and Streamable HTTP. A task-augmented bash call
// is polled to its end, its status notification arrives, tasks/result reads
// it, task_list agrees; tasks/cancel stops the process.
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';
import { processesWith, serverDirs, waitUntil } from '../support/mcp-clients.js';
import { httpServerForSuite } from '../support/suite-http-server.js';
import { uniqueSleep } from '../support/process-table.js';
import { TasksClient, textOf } from '../support/tasks-kit.js';

const TOKEN = 'mcp-tasks-e2e-token-0123456789';

async function stdioClient(workspace: string, dshHome: string): Promise<TasksClient> {
  ensureBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN_JS, 'serve', '--workspace', workspace],
    env: { ...getDefaultEnvironment(), DSH_HOME: dshHome },
    stderr: 'pipe',
  });
  return TasksClient.connect(transport);
}

async function pollUntilTerminal(tasks: TasksClient, taskId: string): Promise<string[]> {
  const seen: string[] = [];
  for (;;) {
    const task = await tasks.get(taskId);
    seen.push(task.status);
    if (task.status !== 'working') return seen;
    await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 200));
  }
}

async function runsAndCancels(tasks: TasksClient): Promise<void> {
  expect(tasks.client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
  const { tools } = await tasks.client.listTools();
  expect(tools.find((tool) => tool.name === 'bash')?.execution).toEqual({ taskSupport: 'optional' });

  // Start, poll, notification, result; both views agree.
  const task = await tasks.start('bash', { command: 'echo first; sleep 1; echo second', description: 'two lines' }, { ttl: 120_000 });
  expect(task).toMatchObject({ status: 'working', ttl: 120_000 });
  const seen = await pollUntilTerminal(tasks, task.taskId);
  expect(seen[seen.length - 1]).toBe('completed');
  expect(await tasks.statusOf(task.taskId, 'completed')).toMatchObject({ statusMessage: 'exit code: 0' });
  expect(textOf(await tasks.result(task.taskId))).toBe('first\nsecond\n[status: completed, exit code: 0]');
  expect(textOf(await tasks.call('task_list', {}))).toMatch(new RegExp(`${task.taskId}\\b.*completed`));

  // Cancel: the process is gone when the answer comes; task_output says killed.
  const sleep = uniqueSleep();
  const running = await tasks.start('bash', { command: `sleep ${sleep}`, description: 'sleep' });
  await waitUntil(() => processesWith(sleep).length > 0, 'the sleep runs');
  expect(await tasks.cancel(running.taskId)).toMatchObject({ status: 'cancelled' });
  expect(processesWith(sleep)).toEqual([]);
  await tasks.statusOf(running.taskId, 'cancelled');
  expect(textOf(await tasks.call('task_output', { task_id: running.taskId }))).toMatch(/\[status: killed/);
  expect((await tasks.list()).map((listed) => [listed.taskId, listed.status])).toEqual([
    [task.taskId, 'completed'],
    [running.taskId, 'cancelled'],
  ]);
}

describe('stdio', () => {
  let dirs: ReturnType<typeof serverDirs>;
  beforeEach(() => (dirs = serverDirs()));
  afterEach(() => dirs.cleanup());

  test('a task runs, is polled to its end, read, and another is cancelled', async () => {
    const tasks = await stdioClient(dirs.workspace, dirs.dshHome);
    try {
      await runsAndCancels(tasks);
    } finally {
      await tasks.close();
    }
  }, 90_000);

  test('closing the client ends its tasks: no orphan process', async () => {
    const tasks = await stdioClient(dirs.workspace, dirs.dshHome);
    const sleep = uniqueSleep();
    await tasks.start('bash', { command: `sleep ${sleep}`, description: 'sleep' });
    await waitUntil(() => processesWith(sleep).length > 0, 'the sleep runs');
    await tasks.close();
    await waitUntil(() => processesWith(sleep).length === 0, 'the sleep is gone');
  }, 60_000);
});

describe('Streamable HTTP', () => {
  const suite = httpServerForSuite({ token: TOKEN });

  const connect = () =>
    TasksClient.connect(new StreamableHTTPClientTransport(suite.server.url, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));

  test('a task runs, is polled to its end, read, and another is cancelled', async () => {
    const tasks = await connect();
    try {
      await runsAndCancels(tasks);
    } finally {
      await tasks.close();
    }
  }, 90_000);

  test('another HTTP session of the same caller cannot see or cancel the task', async () => {
    const owner = await connect();
    const other = await connect();
    const sleep = uniqueSleep();
    try {
      const task = await owner.start('bash', { command: `sleep ${sleep}`, description: 'sleep' });
      await expect(other.get(task.taskId)).rejects.toMatchObject({ code: -32602 });
      await expect(other.cancel(task.taskId)).rejects.toMatchObject({ code: -32602 });
      expect(await other.list()).toEqual([]);
      expect(await owner.get(task.taskId)).toMatchObject({ status: 'working' });
    } finally {
      await Promise.all([owner.close(), other.close()]);
    }
  }, 60_000);
});
