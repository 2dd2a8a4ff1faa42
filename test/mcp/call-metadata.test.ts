// Over MCP, the JSON-RPC id of a tools/call becomes the call's requestId and the string entries of its
// `_meta` the call's metadata (the protocol's own keys and non-string values left out); the call id stays
// unique. Oversized metadata is refused with a clear error. Real MCP client and server, in memory.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IsString } from 'class-validator';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import type { McpConnection } from '../../src/mcp/legacy/mcp-connection.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { connectInProcess } from '../support/in-process-client.js';
import { PluginModule, Tool, bindTool, currentToolCall, textResult, type ToolInstance } from '../../src/index.js';

class NoArgs {
  @IsString()
  note!: string;
}

const seen: unknown[] = [];

@Tool({ name: 'who_calls', description: 'Record the call.', args: NoArgs, requires: [] })
class WhoCallsTool implements ToolInstance<NoArgs> {
  async run() {
    const call = currentToolCall()!;
    seen.push({ callId: call.callId, requestId: call.requestId, metadata: call.metadata });
    return textResult('recorded');
  }
}

let dir: string;
let host: DshHost;
let connection: McpConnection;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-call-meta-'));
  host = await createHost(...localEnvironment({ workspace: dir }), new PluginModule('who', ({ bind }) => bindTool(bind, WhoCallsTool)));
  ({ connection, client } = await connectInProcess(host, { cwd: dir, name: 'meta' }));
});

afterAll(async () => {
  await client.close();
  await connection.close();
  await host.dispose();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => void (seen.length = 0));

const callWith = (_meta: Record<string, unknown>) =>
  client.request({ method: 'tools/call', params: { name: 'who_calls', arguments: { note: 'x' }, _meta } }, CallToolResultSchema);

test("the request's id and its _meta strings reach the tool; protocol keys and non-strings do not", async () => {
  const result = await callWith({
    tenant: 'acme',
    'example.com/user': 'u-1',
    progressToken: 'p-1',
    'io.modelcontextprotocol/related-task': { taskId: 't' },
    'dev.mcp/x': 'reserved',
    count: 3,
  });
  expect(result.isError).toBeFalsy();
  expect(seen).toHaveLength(1);
  const call = seen[0] as { callId: string; requestId: string; metadata: Record<string, string> };
  expect(call.metadata).toEqual({ tenant: 'acme', 'example.com/user': 'u-1' });
  expect(call.requestId).toMatch(/^\d+$/);
  expect(call.callId).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.stringify(result)).not.toContain('acme');
});

test('two calls with the same metadata get distinct call ids and request ids', async () => {
  await callWith({ tenant: 'acme' });
  await callWith({ tenant: 'acme' });
  const [a, b] = seen as Array<{ callId: string; requestId: string }>;
  expect(a!.callId).not.toBe(b!.callId);
  expect(a!.requestId).not.toBe(b!.requestId);
});

test('attack: an oversized _meta string is refused with a clear error and the tool never runs', async () => {
  const result = await callWith({ tenant: 'x'.repeat(5000) });
  expect(result.isError).toBe(true);
  expect(result.content).toEqual([{ type: 'text', text: 'Error: invalid call metadata: "tenant" is longer than 4096 characters' }]);
  expect(seen).toEqual([]);
});
