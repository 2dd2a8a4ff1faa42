import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { DshHost } from '../../../src/container/dsh-host.js';
import type { McpElicitationAnswerer } from '../../../src/mcp/approvals/elicitation-answerer.js';
import { McpConnection } from '../../../src/mcp/legacy/mcp-connection.js';

export interface InProcessClient {
  readonly connection: McpConnection;
  readonly client: Client;
  /** The elicitation messages the client was shown. */
  readonly asked: string[];
}

/**
 * A real MCP client connected to `host` over a linked in-memory transport
 * pair (no spawn). With `answer`, the client supports elicitation and gives
 * that answer to every question.
 */
export async function connectInProcess(
  host: DshHost,
  options: { cwd: string; approvals: McpElicitationAnswerer; answer?: ElicitResult },
): Promise<InProcessClient> {
  const connection = new McpConnection(host, { cwd: options.cwd, approvals: options.approvals });
  const { answer } = options;
  const client = new Client({ name: 'in-process', version: '1' }, { capabilities: answer ? { elicitation: {} } : {} });
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return answer;
    });
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connection.connect(serverSide);
  await client.connect(clientSide);
  return { connection, client, asked };
}
