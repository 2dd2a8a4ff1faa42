// 2025 eras: a client that declared URL-mode elicitation only cannot show an
// approval's facts in a form: the call is refused with "approval needs form
// input" (not "no approval answerer is configured"), and it is never asked.
import { createHost, type DshHost } from '../../src/index.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../src/mcp/approvals/elicitation-answerer.js';
import { ScriptedExecutor, testingEnvironment } from '../../src/testing.js';
import { resultText } from '../support/approval-kit.js';
import { connectInProcess } from '../support/in-process-client.js';

let host: DshHost;
let executor: ScriptedExecutor;
const answerer = new McpElicitationAnswerer();

beforeEach(async () => {
  executor = new ScriptedExecutor({}, {}, 'read-only');
  host = await createHost(
    ...testingEnvironment({ logLevel: 'error', executor, approval: { rules: [{ match: 'npm publish', action: 'ask', name: 'publishing' }] } }),
    mcpApprovalModule(answerer),
  );
});
afterEach(() => host.dispose());

async function callWith(capabilities: Record<string, unknown>, args: Record<string, unknown>): Promise<{ text: string; asked: number }> {
  const { connection, client, asked } = await connectInProcess(host, {
    cwd: '/repo',
    approvals: answerer,
    name: 'url-only',
    capabilities,
    ...(capabilities.elicitation ? { answer: { action: 'accept' as const, content: {} } } : {}),
  });
  try {
    return { text: resultText(await client.callTool({ name: 'bash', arguments: args })), asked: asked.length };
  } finally {
    await connection.close();
  }
}

test('an `ask` rule: "command not approved: approval needs form input; …", nothing runs', async () => {
  const result = await callWith({ elicitation: { url: {} } }, { command: 'npm publish', description: 'Publish' });
  expect(result).toEqual({ text: 'Error: command not approved: approval needs form input; this client offers only URL-mode elicitation', asked: 0 });
  expect(executor.runs).toEqual([]);
});

test('an escalation: "escalation rejected: approval needs form input; …", nothing runs', async () => {
  const args = { command: 'make install', description: 'Install', sandbox_permissions: 'workspace-write', justification: 'Installs into the tree.' };
  const result = await callWith({ elicitation: { url: {} } }, args);
  expect(result).toEqual({ text: 'Error: escalation rejected: approval needs form input; this client offers only URL-mode elicitation', asked: 0 });
  expect(executor.runs).toEqual([]);
});

test('a client declaring both modes is asked through the form (the control case)', async () => {
  const result = await callWith({ elicitation: { form: {}, url: {} } }, { command: 'npm publish', description: 'Publish' });
  expect(result.asked).toBe(1);
  expect(executor.runs.map((spec) => spec.command)).toEqual(['npm publish']);
});
