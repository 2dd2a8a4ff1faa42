// The one in-memory MCP connection of the tests: an McpConnection on a host,
// linked to a real 1.x SDK client over an in-memory transport pair (no
// spawn, no port). Suites that drive the client side by hand take the linked
// transport alone.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ClientCapabilities, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { McpConnection, type McpConnectionOptions } from '../../src/mcp/legacy/mcp-connection.js';

export interface InProcessClient {
  readonly connection: McpConnection;
  readonly client: Client;
  /** The elicitation messages the client was shown. */
  readonly asked: string[];
}

export interface InProcessOptions extends McpConnectionOptions {
  /** The client's name in `initialize` (default `in-process`). */
  readonly name?: string;
  /** The client's capabilities (default: elicitation when `answer` is given, else none). */
  readonly capabilities?: ClientCapabilities;
  /** The answer to every elicitation, fixed or computed from the question (a throw fails the request). */
  readonly answer?: ElicitResult | ((question: ElicitRequest['params']) => ElicitResult);
  /** Handlers to set on the client before it connects (notifications it records). */
  readonly prepare?: (client: Client) => void;
}

/** An McpConnection on `host`, connected to one end of a linked pair; the other end is the caller's to drive. */
export async function linkInProcess(host: DshHost, options: McpConnectionOptions): Promise<{ connection: McpConnection; clientSide: InMemoryTransport }> {
  const connection = new McpConnection(host, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.connect(serverSide);
  return { connection, clientSide };
}

/** A real MCP client connected to `host` over a linked in-memory pair. */
export async function connectInProcess(host: DshHost, options: InProcessOptions): Promise<InProcessClient> {
  const { name = 'in-process', capabilities, answer, prepare, ...connectionOptions } = options;
  const client = new Client({ name, version: '1' }, { capabilities: capabilities ?? (answer ? { elicitation: {} } : {}) });
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return typeof answer === 'function' ? answer(request.params) : answer;
    });
  }
  prepare?.(client);
  const { connection, clientSide } = await linkInProcess(host, connectionOptions);
  await client.connect(clientSide);
  return { connection, client, asked };
}
