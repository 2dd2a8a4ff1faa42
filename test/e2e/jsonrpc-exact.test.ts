// Issue 22 items 6 and 7: every malformed message gets its JSON-RPC error, on
// stdio and over HTTP alike; never a silent drop (the client would hang).
import { INITIALIZED } from '../support/raw-legacy.js';
import { type RawStdioServer, startRawStdio } from '../support/raw-stdio.js';
import { serverDirs } from '../support/mcp-clients.js';
import { rawRequest } from '../support/raw-http.js';
import { httpServerForSuite } from '../support/suite-http-server.js';

const TOKEN = 'jsonrpc-exact-token-0123456789';

function initialize(id: number, protocolVersion: string): object {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
}

describe('stdio', () => {
  let dirs: ReturnType<typeof serverDirs>;
  let server: RawStdioServer;
  beforeEach(() => (dirs = serverDirs()));
  afterEach(async () => {
    server.child.stdin!.end();
    await server.exited;
    dirs.cleanup();
  });

  test('invalid JSON → -32700; null id, jsonrpc 1.0 and a non-object → -32600; each answered in order', async () => {
    server = startRawStdio(dirs.workspace, dirs.dshHome);
    server.send(initialize(1, '2025-11-25'));
    await server.answer(1);
    server.send(INITIALIZED);
    const from = server.messages.length;
    const lines = ['{not json', '{"jsonrpc":"2.0","id":null,"method":"ping"}', '{"jsonrpc":"1.0","id":7,"method":"ping"}', '42', '{"jsonrpc":"2.0","id":8,"method":"ping"}'];
    server.child.stdin!.write(lines.map((line) => `${line}\n`).join(''));
    expect(await server.messagesAfter(from, 5)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the message is not valid JSON' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: "id" must be a string or a number' } },
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a message must be a JSON object' } },
      { jsonrpc: '2.0', id: 8, result: {} },
    ]);
  }, 60_000);

  test('a batch under 2025-11-25 is refused with -32600; under 2025-03-26 each element is answered in one array', async () => {
    server = startRawStdio(dirs.workspace, dirs.dshHome);
    server.send(initialize(1, '2025-11-25'));
    await server.answer(1);
    let from = server.messages.length;
    server.child.stdin!.write(`${JSON.stringify([{ jsonrpc: '2.0', id: 2, method: 'ping' }])}\n`);
    expect(await server.messagesAfter(from, 1)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not accepted in protocol version 2025-11-25' } },
    ]);
    server.child.stdin!.end();
    await server.exited;

    server = startRawStdio(dirs.workspace, dirs.dshHome);
    server.send(initialize(1, '2025-03-26'));
    await server.answer(1);
    server.send(INITIALIZED);
    from = server.messages.length;
    const batch = [
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo batched', description: 'Echo a word' } } },
      { jsonrpc: '2.0', id: null, method: 'ping' },
    ];
    server.child.stdin!.write(`${JSON.stringify(batch)}\n`);
    const [answers] = (await server.messagesAfter(from, 1)) as unknown as [Array<Record<string, unknown>>];
    expect(answers).toHaveLength(3);
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: "id" must be a string or a number' } });
    const call = answers.find((answer) => answer.id === 3) as { result: { content: Array<{ text: string }> } };
    expect(call.result.content[0]!.text).toContain('batched');
  }, 60_000);

  test('a batch whose call the client cancels still answers the rest (no wait for an answer that never comes)', async () => {
    server = startRawStdio(dirs.workspace, dirs.dshHome);
    server.send(initialize(1, '2025-03-26'));
    await server.answer(1);
    server.send(INITIALIZED);
    const from = server.messages.length;
    const slow = { jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'bash', arguments: { command: 'sleep 30', description: 'Wait' } } };
    server.child.stdin!.write(`${JSON.stringify([slow, { jsonrpc: '2.0', id: 21, method: 'ping' }])}\n`);
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 20, reason: 'test' } });
    expect(await server.messagesAfter(from, 1)).toEqual([[{ jsonrpc: '2.0', id: 21, result: {} }]]);
  }, 60_000);

  test('tools/call without a name and logging/setLevel "bogus" → -32602 with one line', async () => {
    server = startRawStdio(dirs.workspace, dirs.dshHome);
    server.send(initialize(1, '2025-11-25'));
    await server.answer(1);
    server.send(INITIALIZED);
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { arguments: {} } });
    server.send({ jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'bogus' } });
    expect(await server.answer(2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32602, message: 'Invalid params: tools/call needs "name" (a string, the tool to call)' },
    });
    expect(await server.answer(3)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32602, message: 'Invalid params: logging/setLevel "level" must be one of debug, info, notice, warning, error, critical, alert, emergency' },
    });
  }, 60_000);
});

describe('HTTP', () => {
  const suite = httpServerForSuite({ token: TOKEN });
  const auth = { authorization: `Bearer ${TOKEN}` };

  async function session(protocolVersion: string): Promise<Record<string, string>> {
    const reply = await rawRequest(suite.server.url, { headers: auth, body: JSON.stringify(initialize(1, protocolVersion)) });
    expect(reply.status).toBe(200);
    return { ...auth, 'mcp-session-id': reply.headers['mcp-session-id'] as string, 'mcp-protocol-version': protocolVersion };
  }

  function jsonOf(body: string): unknown {
    const data = /^data: (.*)$/m.exec(body)?.[1];
    return JSON.parse(data ?? body);
  }

  test('invalid JSON, null id, jsonrpc 1.0, a non-object and an empty batch get 400 with their JSON-RPC error', async () => {
    const headers = await session('2025-11-25');
    const cases: Array<[string, number, number | null]> = [
      ['{not json', -32700, null],
      ['{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, null],
      ['{"jsonrpc":"1.0","id":4,"method":"ping"}', -32600, 4],
      ['"ping"', -32600, null],
      ['[]', -32600, null],
    ];
    for (const [body, code, id] of cases) {
      for (const sent of [auth, headers]) {
        const reply = await rawRequest(suite.server.url, { headers: sent, body });
        expect([body, reply.status]).toEqual([body, 400]);
        expect(JSON.parse(reply.body)).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
      }
    }
  }, 60_000);

  test('a batch in a 2025-11-25 session gets -32600; in a 2025-03-26 session each element is answered', async () => {
    const modern = await session('2025-11-25');
    const batch = JSON.stringify([{ jsonrpc: '2.0', id: 5, method: 'ping' }, { jsonrpc: '2.0', id: 6, method: 'tools/list' }]);
    const refused = await rawRequest(suite.server.url, { headers: modern, body: batch });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not accepted in protocol version 2025-11-25' },
    });
    const old = await session('2025-03-26');
    const answered = await rawRequest(suite.server.url, { headers: old, body: batch });
    expect(answered.status).toBe(200);
    const messages = [...answered.body.matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]!) as unknown);
    const flat = (messages.length > 0 ? messages : [JSON.parse(answered.body) as unknown]).flat() as Array<{ id: number }>;
    expect(flat.map((message) => message.id).sort()).toEqual([5, 6]);
  }, 60_000);

  test('tools/call without a name and logging/setLevel "bogus" → -32602 with one line', async () => {
    const headers = await session('2025-11-25');
    const noName = await rawRequest(suite.server.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} }) });
    expect(jsonOf(noName.body)).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Invalid params: tools/call needs "name" (a string, the tool to call)' } });
    const bogus = await rawRequest(suite.server.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'logging/setLevel', params: { level: 'bogus' } }) });
    expect(jsonOf(bogus.body)).toMatchObject({ id: 8, error: { code: -32602, message: expect.stringMatching(/^Invalid params: logging\/setLevel "level" must be one of [^\n]+$/) } });
  }, 60_000);
});
