// The MCP elicitation answerer with a real MCP client (in process): the
// approval's facts as fixed form fields, and a client that fails or edits a
// field never approves anything.
import { createHost, type DshHost } from '../../../src/index.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../../src/mcp/approvals/elicitation-answerer.js';
import { ScriptedConfinement, ScriptedExecutor, testingEnvironment } from '../../../src/testing.js';
import { fieldValue, promptClient, resultText, type Elicited } from '../../support/approval-kit.js';

let host: DshHost;
let executor: ScriptedExecutor;
const answerer = new McpElicitationAnswerer();
const escalate = { command: 'make install', description: 'Install', sandbox_permissions: 'workspace-write', justification: 'Installs into the tree.' };

beforeEach(async () => {
  executor = new ScriptedExecutor({}, {}, 'read-only');
  host = await createHost(...testingEnvironment({ logLevel: 'error', executor }), mcpApprovalModule(answerer));
});
afterEach(() => host.dispose());

async function escalateWith(answer: Parameters<typeof promptClient>[3]) {
  const user = await promptClient(host, answerer, '/repo', answer);
  try {
    return { text: resultText(await user.client.callTool({ name: 'bash', arguments: escalate })), shown: user.shown };
  } finally {
    await user.close();
  }
}

/** The content a form returns when the user submits every field as shown. */
const asShown = (shown: Elicited) =>
  Object.fromEntries(Object.keys(shown.requestedSchema.properties).map((name) => [name, fieldValue(shown.requestedSchema, name)!]));

test('every fact is a fixed, pre-selected field; submitting them as shown runs the command once', async () => {
  const { text, shown } = await escalateWith((question) => ({ action: 'accept', content: asShown(question) }));
  expect(text).toBe('(no output)');
  expect(executor.runs.map((spec) => [spec.command, ScriptedConfinement.modeOf(spec)])).toEqual([['make install', 'workspace-write']]);
  const command = shown[0]!.requestedSchema.properties.command as Record<string, unknown>;
  expect(command).toEqual({
    type: 'string',
    title: 'Command (1 line)',
    description: expect.stringContaining('JSON-quoted'),
    oneOf: [{ const: '"make install"', title: '"make install"' }],
    default: '"make install"',
  });
  expect(shown[0]!.message.split('\n')[0]).toBe("Mode: workspace-write (wider than this session's read-only; this call only)");
});

test('a client that edits a field is not approving anything: the approver failed, nothing runs', async () => {
  const { text } = await escalateWith((question) => ({ action: 'accept', content: { ...asShown(question), command: '"rm -rf /"' } }));
  expect(text).toBe('Error: escalation rejected: the approver failed');
  expect(executor.runs).toEqual([]);
});

test('a client that fails the elicitation: the approver failed (not "no answerer"), nothing runs', async () => {
  const { text } = await escalateWith(() => {
    throw new Error('form crashed');
  });
  expect(text).toBe('Error: escalation rejected: the approver failed');
  expect(executor.runs).toEqual([]);
});

test('a dismissed form is cancelled, a declined one rejected by the user', async () => {
  expect((await escalateWith({ action: 'cancel' })).text).toBe('Error: escalation cancelled');
  expect((await escalateWith({ action: 'decline' })).text).toBe('Error: escalation rejected by the user');
  expect(executor.runs).toEqual([]);
});
