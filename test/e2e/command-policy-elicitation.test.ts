// An `ask` command rule under the MCP server: the calling client is asked
// through elicitation; its answer decides whether anything runs.
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../src/mcp/approvals/elicitation-answerer.js';
import { ScriptedExecutor, testingEnvironment } from '../../src/testing.js';
import { connectInProcess } from '../support/in-process-client.js';

let host: DshHost;
const ran: string[] = [];
const answerer = new McpElicitationAnswerer();

beforeAll(async () => {
  const executor = new ScriptedExecutor({}, (spec) => (ran.push(spec.command), { stdout: 'published\n' }));
  host = await createHost(
    ...testingEnvironment({ executor, approval: { rules: [{ match: 'npm publish', action: 'ask', name: 'publishing' }] } }),
    mcpApprovalModule(answerer),
  );
});

afterAll(() => host.dispose());

async function callAs(answer: ElicitResult | undefined, command: string) {
  const { connection, client, asked } = await connectInProcess(host, { cwd: '/repo', approvals: answerer, ...(answer ? { answer } : {}) });
  try {
    const result = await client.callTool({ name: 'bash', arguments: { command, description: 'Publish' } });
    return { text: (result.content as Array<{ text: string }>)[0]!.text, isError: result.isError, asked };
  } finally {
    await connection.close();
  }
}

beforeEach(() => {
  ran.length = 0;
});

test('an accepting client lets the command run once, after being shown the command and the rule', async () => {
  const result = await callAs({ action: 'accept', content: {} }, 'npm publish');
  expect(result.text).toBe('published');
  expect(ran).toEqual(['npm publish']);
  expect(result.asked).toHaveLength(1);
  expect(result.asked[0]).toBe(
    ['Mode: no sandbox mode', 'Command (1 line): "npm publish"', 'Directory: "/repo"', 'Rule: "publishing"', 'Tool: bash', 'Allow it to run?'].join('\n'),
  );
});

test('a declining client: rejected by the user, nothing runs', async () => {
  const result = await callAs({ action: 'decline' }, 'git status && npm publish');
  expect(result).toMatchObject({ text: 'Error: command rejected by the user', isError: true });
  expect(ran).toEqual([]);
});

test('a client without elicitation: fails closed, nothing runs', async () => {
  const result = await callAs(undefined, 'npm publish');
  // The elicitation answerer is there but cannot ask this client: it passes, so nobody decided.
  expect(result.text).toBe('Error: command not approved: no approver gave a decision');
  expect(ran).toEqual([]);
});
