// Issue 22 item 5: a quiet command outlives a TypeScript-SDK client's
// request timeout only when progress resets it. The server (dist/cli/main.js,
// a real 1.x SDK client over stdio) sends a heartbeat while nothing else was
// sent for one interval; here the interval is 0.25 s and the client's timeout
// 3 s (twelve intervals: room for a loaded machine), the command quiet for 6 s.
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema, ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { serverDirs, startStdioServer, textOf, type StdioServer } from '../support/mcp-clients.js';

let server: StdioServer;
let cleanup: () => void;

beforeAll(async () => {
  const dirs = serverDirs();
  cleanup = dirs.cleanup;
  server = await startStdioServer({ ...dirs, args: ['--heartbeat-interval', '0.25'] });
}, 180_000);

afterAll(async () => {
  await server?.close();
  cleanup?.();
});

const HEARTBEAT = /^still running after \d+s$/;

async function callWithProgress(command: string, reset: boolean): Promise<{ result: CallToolResult; updates: Progress[] }> {
  const updates: Progress[] = [];
  const result = (await server.client.callTool({ name: 'bash', arguments: { command, description: 'A quiet command' } }, CallToolResultSchema, {
    timeout: 3000,
    resetTimeoutOnProgress: reset,
    onprogress: (progress) => updates.push(progress),
  })) as CallToolResult;
  return { result, updates };
}

test('a quiet command longer than the client timeout succeeds with resetTimeoutOnProgress: heartbeats arrive and grow', async () => {
  const { result, updates } = await callWithProgress('sleep 6; echo done', true);
  expect(textOf(result)).toBe('done');
  // 6 s at 0.25 s: about 24; a loaded machine may merge some. The output's own report may come last.
  const heartbeats = updates.filter((update) => update.message !== 'done');
  expect(heartbeats.length).toBeGreaterThanOrEqual(4);
  for (const update of heartbeats) expect(update.message).toMatch(HEARTBEAT);
  for (let i = 1; i < updates.length; i++) expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
  expect(heartbeats.at(-1)!.message).not.toBe('still running after 0s');
}, 30_000);

test('without resetTimeoutOnProgress the same call times out at the client: the heartbeat is what keeps it alive', async () => {
  const failure = await callWithProgress('sleep 6; echo done', false).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(McpError);
  expect((failure as McpError).code).toBe(ErrorCode.RequestTimeout);
}, 30_000);

test('output and heartbeats share one growing progress sequence; none arrives after the result', async () => {
  const errorsBefore = server.errors.length;
  // What the server wrote, in its order: the SDK 1.x client handles a notification a microtask later but a
  // response at once, so a progress written just before the result and read in the same chunk reaches its
  // handler after the token was forgotten ("unknown token"), though it came first on the wire.
  const wire: JSONRPCMessage[] = [];
  const deliver = server.transport.onmessage!;
  server.transport.onmessage = (message: JSONRPCMessage) => {
    wire.push(message);
    deliver(message);
  };
  const { result, updates } = await callWithProgress('echo first; sleep 4; echo second', true);
  // Watch three intervals after the result: nothing of this call may be written then.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  server.transport.onmessage = deliver;
  expect(textOf(result)).toBe('first\nsecond');
  const messages = updates.map((update) => update.message);
  expect(messages[0]).toBe('first');
  expect(messages.filter((message) => HEARTBEAT.test(message ?? '')).length).toBeGreaterThanOrEqual(2);
  for (let i = 1; i < updates.length; i++) expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
  const response = wire.findIndex((message) => 'result' in message);
  expect(response).toBeGreaterThan(0);
  const token = (wire[response] as { id: number }).id;
  const progressAt = wire.flatMap((message, i) => (isProgressOf(message, token) ? [i] : []));
  expect(progressAt.length).toBe(updates.length + progressLostAtTheClient(server.errors.slice(errorsBefore), token));
  expect(progressAt.filter((i) => i > response)).toEqual([]);
  // Nothing else went wrong at the client.
  expect(server.errors.slice(errorsBefore).map((error) => error.message).filter((message) => !message.includes('unknown token'))).toEqual([]);
}, 30_000);

/** Whether `message` is a progress notification for the request `token`. */
function isProgressOf(message: JSONRPCMessage, token: number): boolean {
  return 'method' in message && message.method === 'notifications/progress' && (message.params as { progressToken?: unknown }).progressToken === token;
}

/** Progress notifications for `token` the client dropped as "unknown token" (handled after the response they preceded). */
function progressLostAtTheClient(errors: readonly Error[], token: number): number {
  return errors.filter((error) => error.message.includes('progress notification for an unknown token') && error.message.includes(`"progressToken":${token}}`)).length;
}

test('the server instructions tell clients what longer calls need', () => {
  expect(server.client.getInstructions()).toContain('resetTimeoutOnProgress');
});
