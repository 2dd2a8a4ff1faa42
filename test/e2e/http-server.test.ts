import { request } from 'node:http';
import {
  callTool,
  processesWith,
  textOf,
  uniqueMarker,
  waitUntil,
  type HttpServer,
} from '../support/mcp-clients.js';
import { httpServerForSuite } from '../support/suite-http-server.js';

// One server for the file (started before its tests, stopped and its directories removed after them).
const suite = httpServerForSuite();
let server: HttpServer;
beforeAll(() => void (server = suite.server), 180_000);

const bashArgs = (command: string, extra: Record<string, unknown> = {}) => ({
  command,
  description: 'Run a test command',
  ...extra,
});

/** Status of a raw POST to the endpoint with a forged Host header. */
function statusWithHost(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.url.port, path: '/mcp', method: 'POST', headers: { host, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

test('serves Streamable HTTP on 127.0.0.1: list tools and one call', async () => {
  expect(server.url.hostname).toBe('127.0.0.1');
  const { client } = await server.connect();
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('bash');
    const result = await callTool(client, 'bash', bashArgs('echo over http; exit 4'));
    expect(textOf(result)).toBe('over http\n[exit code: 4]');
  } finally {
    await client.close();
  }
});

test('refuses a Host header that is not loopback (DNS rebinding)', async () => {
  expect(await statusWithHost('evil.example:80')).toBe(403);
});

test('two concurrent clients are isolated sessions; closing one disposes only its tasks', async () => {
  const a = await server.connect();
  const b = await server.connect();
  const markerA = `1000.${uniqueMarker()}`;
  try {
    const [idA, idB] = await Promise.all([
      callTool(a.client, 'bash', bashArgs('printf %s "$DSH_SESSION_ID"')).then(textOf),
      callTool(b.client, 'bash', bashArgs('printf %s "$DSH_SESSION_ID"')).then(textOf),
    ]);
    // Commands see a session id of their own, never the transport's Mcp-Session-Id (a credential).
    expect(idA).toMatch(/^[0-9a-f-]{36}$/);
    expect(idA).not.toBe(a.transport.sessionId);
    expect(idB).not.toBe(b.transport.sessionId);
    expect(idA).not.toBe(idB);

    const started = textOf(await callTool(a.client, 'bash', bashArgs(`sleep ${markerA}`, { run_in_background: true })));
    const taskId = /^started background task (\S+)$/.exec(started)![1]!;
    await waitUntil(() => processesWith(markerA).length > 0, `sleep ${markerA} runs`);

    const foreign = await callTool(b.client, 'task_output', { task_id: taskId });
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toMatch(/^Error: /);
    expect(textOf(await callTool(b.client, 'task_list', {}))).toBe('(no background tasks)');
    expect(textOf(await callTool(a.client, 'task_list', {}))).toContain(taskId);

    // DELETE of A's session disposes A's host session: its task dies, B keeps working.
    await a.transport.terminateSession();
    await waitUntil(() => processesWith(markerA).length === 0, `sleep ${markerA} is gone after A's session ended`);
    expect(textOf(await callTool(b.client, 'bash', bashArgs('echo b still works')))).toBe('b still works');
  } finally {
    await Promise.allSettled([a.client.close(), b.client.close()]);
  }
}, 60_000);

test('SIGTERM closes every session and the listener, then exits 0 with no process left', async () => {
  const { client } = await server.connect();
  const marker = `1000.${uniqueMarker()}`;
  try {
    await callTool(client, 'bash', bashArgs(`sleep ${marker}`, { run_in_background: true }));
    await waitUntil(() => processesWith(marker).length > 0, `sleep ${marker} runs`);
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(processesWith(marker)).toEqual([]);
  } finally {
    await client.close().catch(() => undefined);
  }
}, 60_000);
