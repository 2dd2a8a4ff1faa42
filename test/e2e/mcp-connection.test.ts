import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../src/mcp/approvals/elicitation-answerer.js';
import type { McpConnection } from '../../src/mcp/legacy/mcp-connection.js';
import { toCallToolResult, toStructuredContent } from '../../src/mcp/calls/call-result.js';
import { ApprovalAnswerer } from '../../src/providers/policy/approval/approval-service.js';
import { waitUntil } from '../support/mcp-clients.js';
import { connectInProcess, type InProcessClient } from '../support/in-process-client.js';

// In-process: the connection over a linked in-memory transport pair (no spawn).
let host: DshHost;
const answerer = new McpElicitationAnswerer();

beforeAll(async () => {
  host = await createHost(mcpApprovalModule(answerer));
});

afterAll(() => host.dispose());

function connect(answer?: ElicitResult): Promise<InProcessClient> {
  return connectInProcess(host, { cwd: '/', approvals: answerer, ...(answer ? { answer } : {}) });
}

const approval = (connection: McpConnection) =>
  answerer.answer({
    session: connection.session,
    kind: 'escalation',
    tool: 'bash',
    command: 'rm -rf build',
    sandboxMode: 'read-only',
    requestedMode: 'workspace-write',
    justification: 'clean the build',
    reason: '',
    callId: 'c1',
  });

test('the answerer is contributed to the host as an ApprovalAnswerer', () => {
  expect(host.get(ApprovalAnswerer)).toBe(answerer);
});

test('escalation approvals go to the calling session\'s client through elicitation', async () => {
  const accepting = await connect({ action: 'accept', content: {} });
  const declining = await connect({ action: 'decline' });
  try {
    expect(await approval(accepting.connection)).toBe('allowed-once');
    expect(accepting.asked).toHaveLength(1);
    expect(accepting.asked[0]).toContain('Command (1 line): "rm -rf build"');
    expect(await approval(declining.connection)).toBe('rejected');
    expect(declining.asked).toHaveLength(1);
  } finally {
    await Promise.all([accepting.connection.close(), declining.connection.close()]);
  }
});

test('a client without elicitation, or a closed connection, passes (the service then fails closed)', async () => {
  const plain = await connect();
  expect(await approval(plain.connection)).toBeUndefined();
  const accepting = await connect({ action: 'accept', content: {} });
  await accepting.connection.close();
  expect(accepting.connection.session.disposed).toBe(true);
  expect(await approval(accepting.connection)).toBeUndefined();
  await plain.connection.close();
});

test('closing the client side disposes the host session', async () => {
  const { connection, client } = await connect();
  expect(connection.session.disposed).toBe(false);
  await client.close();
  // The transport's close reached the server side: the connection closes its session by itself.
  await waitUntil(() => connection.session.disposed, 'the host session is disposed');
});

test('results: notices follow one blank line; non-object values are wrapped for structuredContent', () => {
  const result = toCallToolResult({ content: [{ type: 'text', text: 'done' }], value: 7 }, ['n1', 'n2']);
  expect(result).toEqual({ content: [{ type: 'text', text: 'done\n\nn1\nn2' }], structuredContent: { value: 7, text: 'done\n\nn1\nn2' } });
  const trailing = toCallToolResult({ content: [{ type: 'text', text: 'line\n' }], isError: true }, ['n']);
  expect(trailing).toEqual({ content: [{ type: 'text', text: 'line\n\nn' }], isError: true });
  expect(toStructuredContent(['a'])).toEqual({ value: ['a'] });
  expect(toStructuredContent({ kind: 'background', taskId: 'bash-1', gone: undefined })).toEqual({ kind: 'background', taskId: 'bash-1' });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  expect(toStructuredContent(cyclic)).toBeUndefined();
  expect(toStructuredContent(undefined)).toBeUndefined();
});
