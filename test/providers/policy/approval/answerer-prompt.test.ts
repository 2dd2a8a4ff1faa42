// The approval:answerers prompt section: who answers, from the answerers bound when the prompt is read (docs/contract.md §10).
import os from 'node:os';
import { createHost } from '../../../../src/container/create-host.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../../../src/mcp/approvals/elicitation-answerer.js';
import { localEnvironment } from '../../../../src/plugins/local.environment.js';
import type { ApprovalConfig } from '../../../../src/providers/policy/approval/approval-config.js';
import { secretFile } from '../../../support/webhook-receiver.js';

const OPENING = 'Approvals (a sandbox escalation, or a command under an ask rule)';
const REFUSED =
  `${OPENING} cannot be answered here: no approver is configured, so each is refused at once. ` +
  'Do not request sandbox_permissions; work within the current mode, or tell the user what you could not run and why.';
const WAITS = 'A call waits at most 300s for its answer, and its result says what was decided: do not ask for approval in your reply.';

async function sectionOf(approval: Partial<ApprovalConfig>, elicitation = false): Promise<string | undefined> {
  const host = await createHost(...localEnvironment({ workspace: os.tmpdir(), logLevel: 'error', approval }));
  try {
    if (elicitation) await host.load(mcpApprovalModule(new McpElicitationAnswerer()));
    return host.prompt().sections.find((section) => section.name === 'approval:answerers')?.text;
  } finally {
    await host.dispose();
  }
}

describe('the approval:answerers prompt section', () => {
  const secret = secretFile();
  afterAll(() => secret.remove());
  const webhook = { url: 'https://approvals.example/dsh', secretFile: secret.file };

  it('is absent when neither approval.webhook nor approval.answerers is set (prompts unchanged)', async () => {
    await expect(sectionOf({ rules: [] }, true)).resolves.toBeUndefined();
  });

  it('names the client form first and the webhook after, under serve', async () => {
    await expect(sectionOf({ webhook }, true)).resolves.toBe(
      `${OPENING} are answered by: the user, in a form of your MCP client, if the client offers forms; else the operator's approval webhook; else nobody, and the call is refused. ${WAITS}`,
    );
  });

  it('names only the webhook without a client (call, embedders), and follows approval.answerers', async () => {
    await expect(sectionOf({ webhook })).resolves.toBe(`${OPENING} are answered by: the operator's approval webhook; else nobody, and the call is refused. ${WAITS}`);
    await expect(sectionOf({ webhook, answerers: ['webhook'] }, true)).resolves.toBe(
      `${OPENING} are answered by: the operator's approval webhook; else nobody, and the call is refused. ${WAITS}`,
    );
  });

  it('tells the model at once when nobody can answer', async () => {
    await expect(sectionOf({ answerers: [] }, true)).resolves.toBe(REFUSED);
    await expect(sectionOf({ answerers: ['webhook'] }, true)).resolves.toBe(REFUSED);
  });
});
