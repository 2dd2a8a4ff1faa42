// The answerer chain through a real MCP connection and real bash: the client's
// form when it offers one, else the webhook (a signed loopback receiver), and
// approval.answerers keeping a form-capable client out of it. The server's
// instructions tell the model who answers.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../src/mcp/approvals/elicitation-answerer.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { markerWorkspace, promptClient, resultText } from '../support/approval-kit.js';
import { connectInProcess } from '../support/in-process-client.js';
import { answerWith, secretFile, startReceiver, type Receiver } from '../support/webhook-receiver.js';

describe('the approval answerer chain over MCP', () => {
  let ws: ReturnType<typeof markerWorkspace>;
  let secret: ReturnType<typeof secretFile>;
  let hook: Receiver;
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    ws = markerWorkspace('dsh-answerer-chain-');
    secret = secretFile();
    hook = await startReceiver(answerWith('allowed-once'));
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    await hook.close();
    secret.remove();
    ws.remove();
  });

  async function compose(answerers?: string[]): Promise<{ host: DshHost; elicitation: McpElicitationAnswerer }> {
    const host = await createHost(
      ...localEnvironment({
        workspace: ws.dir,
        logLevel: 'error',
        approval: { rules: [{ match: 'touch', action: 'ask' }], webhook: { url: hook.url, secretFile: secret.file }, ...(answerers ? { answerers } : {}) },
      }),
    );
    const elicitation = new McpElicitationAnswerer();
    await host.load(mcpApprovalModule(elicitation));
    closers.push(() => host.dispose());
    return { host, elicitation };
  }

  async function plainClient(host: DshHost, elicitation: McpElicitationAnswerer): Promise<Client> {
    const { connection, client } = await connectInProcess(host, { cwd: ws.dir, approvals: elicitation, name: 'headless-agent' });
    closers.push(() => connection.close());
    return client;
  }

  const touch = (name: string) => ({ name: 'bash', arguments: { command: `touch ${path.join(ws.dir, name)}`, description: 'Touch' } });

  it('a client that offers forms is asked, and the webhook is not', async () => {
    const { host, elicitation } = await compose();
    const prompt = await promptClient(host, elicitation, ws.dir, { action: 'decline' });
    closers.push(() => prompt.close());
    const before = hook.received.length;
    expect(resultText(await prompt.client.callTool(touch('by-form')))).toBe('Error: command rejected by the user');
    expect(prompt.shown).toHaveLength(1);
    expect(hook.received.length).toBe(before);
    expect(prompt.client.getInstructions()).toContain(
      "are answered by: the user, in a form of your MCP client, if the client offers forms; else the operator's approval webhook; else nobody",
    );
  });

  it('a headless client (no elicitation) gets the webhook answer', async () => {
    const { host, elicitation } = await compose();
    const client = await plainClient(host, elicitation);
    const before = hook.received.length;
    const result = await client.callTool(touch('by-webhook'));
    expect(result.isError).toBeFalsy();
    expect(existsSync(path.join(ws.dir, 'by-webhook'))).toBe(true);
    expect(hook.received.length).toBe(before + 1);
    expect(hook.received.at(-1)!.json.request).toMatchObject({ kind: 'command', rule: 'touch' });
  });

  it('approval.answerers: [webhook] keeps even a form-capable client out of it', async () => {
    const { host, elicitation } = await compose(['webhook']);
    const prompt = await promptClient(host, elicitation, ws.dir, { action: 'decline' });
    closers.push(() => prompt.close());
    const result = await prompt.client.callTool(touch('webhook-only'));
    expect(result.isError).toBeFalsy();
    expect(prompt.shown).toEqual([]);
    expect(existsSync(path.join(ws.dir, 'webhook-only'))).toBe(true);
    expect(prompt.client.getInstructions()).toContain("are answered by: the operator's approval webhook; else nobody, and the call is refused.");
  });
});
