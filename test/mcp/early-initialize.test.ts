// The stdio server answers `initialize` before the MCP SDK has loaded: the
// answer must be the SDK's own, and the SDK's server must still learn the
// client (its capabilities decide whether approvals can use elicitation).
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { answerInitializeEarly, initializeResult, ReplayingTransport, SUPPORTED_PROTOCOL_VERSIONS } from '../../src/mcp/early-initialize.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../src/mcp/approvals/elicitation-answerer.js';
import { McpConnection } from '../../src/mcp/legacy/mcp-connection.js';
import { serverInstructions } from '../../src/mcp/sessions/server-info.js';
import { serveStdio, type RunningServer } from '../../src/mcp/stdio-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { waitUntil } from '../support/mcp-clients.js';

let host: DshHost;
const answerer = new McpElicitationAnswerer();

beforeAll(async () => {
  host = await createHost(...localEnvironment({ workspace: '/' }), mcpApprovalModule(answerer));
});
afterAll(() => host.dispose());

const initialize = (protocolVersion: string, capabilities: object = {}) => ({
  jsonrpc: '2.0' as const,
  id: 1,
  method: 'initialize' as const,
  params: { protocolVersion, capabilities, clientInfo: { name: 'test', version: '1' } },
});

/** A connection over an in-memory pair whose client side is driven by hand. */
async function rawConnection(wrap: (server: InMemoryTransport) => InMemoryTransport | ReplayingTransport = (server) => server) {
  const connection = new McpConnection(host, { cwd: '/', approvals: answerer });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  clientSide.onmessage = (message) => {
    received.push(message);
    if ('method' in message && message.method === 'elicitation/create' && 'id' in message) {
      void clientSide.send({ jsonrpc: '2.0', id: message.id, result: { action: 'accept', content: {} } });
    }
  };
  await clientSide.start();
  await connection.connect(wrap(serverSide));
  return { connection, clientSide, received };
}

test('the protocol versions are the SDK server\'s, newest first', () => {
  expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(SDK_VERSIONS);
  expect(SUPPORTED_PROTOCOL_VERSIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
});

test.each([LATEST_PROTOCOL_VERSION, '2024-11-05', '1999-01-01'])('the early answer equals the SDK server\'s (client asks %s)', async (version) => {
  const { connection, clientSide, received } = await rawConnection();
  try {
    await clientSide.send(initialize(version));
    await waitUntil(() => received.length > 0, 'the SDK answers');
    expect(received[0]).toEqual({ jsonrpc: '2.0', id: 1, result: initializeResult(initialize(version), host) });
    expect(initializeResult(initialize(version), host).instructions).toBe(serverInstructions(host));
  } finally {
    await connection.close();
  }
});

test('the first initialize is answered from the host alone; what follows stays on stdin', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const ping = '{"jsonrpc":"2.0","id":2,"method":"ping"}\n';
  stdin.write(`${JSON.stringify(initialize('2025-06-18'))}\n${ping}`);
  const answered = await answerInitializeEarly(stdin, stdout, host);
  expect(answered).toEqual(initialize('2025-06-18'));
  expect(JSON.parse(String(stdout.read()))).toEqual({ jsonrpc: '2.0', id: 1, result: initializeResult(initialize('2025-06-18'), host) });
  expect(String(stdin.read())).toBe(ping);
});

test('the SDK server handed the early-answered request knows the client, and its second answer never reaches it', async () => {
  const { connection, received } = await rawConnection((server) => new ReplayingTransport(server, initialize(LATEST_PROTOCOL_VERSION, { elicitation: {} })));
  try {
    await waitUntil(() => connection.server.getClientCapabilities() !== undefined, 'the SDK learns the client');
    expect(connection.server.getClientVersion()).toEqual({ name: 'test', version: '1' });
    // Elicitation works: the approval is asked of this client and accepted.
    const decision = await answerer.answer({ session: connection.session, kind: 'command', tool: 'bash', command: 'touch x', reason: '', callId: 'c1' });
    expect(decision).toBe('allowed-once');
    expect(received.filter((message) => 'result' in message || 'error' in message)).toEqual([]);
  } finally {
    await connection.close();
  }
});

describe('serveStdio', () => {
  let server: RunningServer | undefined;
  let stdin: PassThrough;
  let stdout: PassThrough;
  beforeEach(() => {
    stdin = new PassThrough();
    stdout = new PassThrough();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** The replies on stdout, one per line. */
  function replies(): () => JSONRPCMessage[] {
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return () => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as JSONRPCMessage);
  }

  test('an SDK client is initialized early, then lists and calls tools', async () => {
    const client = new Client({ name: 'test', version: '1' });
    const started = serveStdio(host, { workspace: '/', stdin, stdout });
    await client.connect(new StdioServerTransport(stdout, stdin));
    server = await started;
    expect(client.getInstructions()).toBe(serverInstructions(host));
    expect(client.getServerCapabilities()).toEqual({ tools: {}, logging: {}, resources: {} });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('bash');
    const result = await client.callTool({ name: 'bash', arguments: { command: 'echo hi', description: 'Say hi' } });
    expect(JSON.stringify(result.content)).toContain('hi');
    await client.close();
  });

  test('a first message that is not initialize, and a malformed initialize, are the SDK\'s to answer', async () => {
    const seen = replies();
    stdin.write('{"jsonrpc":"2.0","id":"p","method":"ping"}\n');
    stdin.write(`${JSON.stringify({ ...initialize(LATEST_PROTOCOL_VERSION), id: 2, params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {} } })}\n`);
    server = await serveStdio(host, { workspace: '/', stdin, stdout });
    await waitUntil(() => seen().length >= 2, 'both answered');
    const byId = (id: string | number) => seen().find((message) => 'id' in message && message.id === id);
    expect(byId('p')).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    expect(byId(2)).toMatchObject({ jsonrpc: '2.0', id: 2, error: { message: expect.stringContaining('clientInfo') } });
  });

  test('a first line longer than an initialize can be is handed to the SDK whole', async () => {
    const seen = replies();
    const pad = 'x'.repeat(200 * 1024);
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'long', method: 'ping', params: { _meta: { pad } } })}\n`);
    server = await serveStdio(host, { workspace: '/', stdin, stdout });
    await waitUntil(() => seen().length > 0, 'the ping is answered');
    expect(seen()).toEqual([{ jsonrpc: '2.0', id: 'long', result: {} }]);
  });

  test('stdin ending before any message ends the server', async () => {
    stdin.end('{"jsonrpc":"2.0"');
    server = await serveStdio(host, { workspace: '/', stdin, stdout });
    await expect(server.closed).resolves.toBeUndefined();
  });

  test('a malformed first initialize is left to the SDK too, which refuses it', async () => {
    const seen = replies();
    stdin.write(`${JSON.stringify({ ...initialize(LATEST_PROTOCOL_VERSION), extra: true })}\n`);
    stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    server = await serveStdio(host, { workspace: '/', stdin, stdout });
    await waitUntil(() => seen().some((message) => 'id' in message && message.id === 3), 'the ping is answered');
    expect(seen().filter((message) => 'id' in message && message.id === 1)).toEqual([]);
  });
});
