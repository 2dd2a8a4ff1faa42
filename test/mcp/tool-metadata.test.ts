// What MCP clients show and check: titles, annotations, and output schemas
// that real results satisfy. The SDK client validates every structuredContent
// against the listed outputSchema, so a result that does not match fails the call.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { connectInProcess } from '../support/in-process-client.js';

let dir: string;
const hosts: DshHost[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-tool-meta-'));
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.dispose()));
  rmSync(dir, { recursive: true, force: true });
});

async function connect(shell: 'oneshot' | 'persistent'): Promise<{ client: Client; tools: Map<string, Tool>; close: () => Promise<void> }> {
  const host = await createHost(...localEnvironment({ workspace: dir, shell, executor: { maxOutputBytes: 1000 } }));
  hosts.push(host);
  const { connection, client } = await connectInProcess(host, { cwd: dir, name: 'metadata' });
  // Listing caches the output-schema validators the client applies to every later call.
  const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
  return { client, tools, close: () => connection.close() };
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const bash = (command: string, extra: Record<string, unknown> = {}) => ({ command, description: 'Run a test command', ...extra });

test('each tool has a title, honest annotations and an object output schema', async () => {
  const { tools, close } = await connect('oneshot');
  try {
    expect(tools.get('bash')).toMatchObject({
      title: 'Run a shell command',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      outputSchema: { type: 'object', required: ['kind', 'text'] },
    });
    expect(tools.get('task_list')).toMatchObject({
      title: 'List background tasks',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    });
    expect(tools.get('task_output')).toMatchObject({ annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false } });
    expect(tools.get('task_kill')).toMatchObject({
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    });
    for (const tool of tools.values()) {
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.annotations?.title).toBe(tool.title);
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.inputSchema.additionalProperties).toBe(false);
    }
  } finally {
    await close();
  }
});

test('real one-shot and task results satisfy their output schemas (the client validates them)', async () => {
  const { client, close } = await connect('oneshot');
  try {
    const ok = await call(client, 'bash', bash('echo hi'));
    expect(ok.structuredContent).toMatchObject({ kind: 'foreground', exitCode: 0, text: 'hi' });
    const failed = await call(client, 'bash', bash('echo err >&2; exit 3'));
    expect(failed.structuredContent).toMatchObject({ exitCode: 3, text: '[stderr]\nerr\n[exit code: 3]' });
    const timedOut = await call(client, 'bash', bash('sleep 5', { timeoutMs: 100 }));
    expect(timedOut.structuredContent).toMatchObject({ timedOut: true });
    const long = await call(client, 'bash', bash('seq 1 2000'));
    expect(long.structuredContent).toMatchObject({ stdoutTruncated: true, stdoutSpillPath: expect.any(String) });
    const killedBySignal = await call(client, 'bash', bash('kill -TERM $$'));
    expect(killedBySignal.structuredContent).toMatchObject({ signal: 'SIGTERM' });
    // A field that does not apply is absent, never null (the portable form).
    expect(killedBySignal.structuredContent).not.toHaveProperty('exitCode');

    expect((await call(client, 'task_list', {})).structuredContent).toEqual({ kind: 'task_list', tasks: [], text: '(no background tasks)' });
    const started = await call(client, 'bash', bash('echo started; sleep 30', { run_in_background: true }));
    const taskId = (started.structuredContent as { taskId: string }).taskId;
    expect(started.structuredContent).toEqual({ kind: 'background', taskId, text: `started background task ${taskId}` });
    const listed = await call(client, 'task_list', {});
    expect(listed.structuredContent).toMatchObject({ tasks: [{ id: taskId, status: 'running' }] });
    const read = await call(client, 'task_output', { task_id: taskId });
    expect(read.structuredContent).toMatchObject({ kind: 'task_output', taskId, status: 'running' });
    const killed = await call(client, 'task_kill', { task_id: taskId });
    expect(killed.structuredContent).toMatchObject({ kind: 'task_kill', taskId, alreadyFinished: false });
    const ended = await call(client, 'task_output', { task_id: taskId, wait: true, timeout_ms: 10_000 });
    expect(ended.structuredContent).toMatchObject({ status: 'killed' });
    const again = await call(client, 'task_kill', { task_id: taskId });
    expect(again.structuredContent).toMatchObject({ alreadyFinished: true, status: 'killed' });
    const finished = await call(client, 'task_list', {});
    expect(finished.structuredContent).toMatchObject({ tasks: [{ id: taskId, status: 'killed', endedAt: expect.any(Number) }] });

    // Errors carry no structuredContent, which the schema allows.
    const error = await call(client, 'task_output', { task_id: 'bash-999' });
    expect(error.isError).toBe(true);
    expect(error.structuredContent).toBeUndefined();
  } finally {
    await close();
  }
}, 60_000);

test('real persistent-shell results satisfy its output schema', async () => {
  const { client, tools, close } = await connect('persistent');
  try {
    expect(tools.get('bash')?.title).toBe('Run a command in your shell');
    const first = await call(client, 'bash', bash('cd /tmp && echo here'));
    expect(first.structuredContent).toMatchObject({ kind: 'foreground', text: expect.stringContaining('here'), exitCode: 0 });
    const failing = await call(client, 'bash', bash('false'));
    expect(failing.structuredContent).toMatchObject({ exitCode: 1 });
    const exited = await call(client, 'bash', bash('exit 4'));
    expect(exited.structuredContent).toMatchObject({ shellExited: true, shellReset: true });
  } finally {
    await close();
  }
}, 60_000);
