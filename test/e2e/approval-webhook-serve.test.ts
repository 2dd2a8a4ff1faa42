// The approval webhook through the built CLI: `serve --http` with
// --approval-webhook and --approval-webhook-secret, a headless MCP client (no
// elicitation) hitting an `ask` rule, and a loopback receiver that answers
// `pending` and then calls the server back, signed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt } from '../support/built-server.js';
import { callTool, serverDirs, startHttpServer, textOf } from '../support/mcp-clients.js';
import { secretFile, sign, startReceiver, type Received } from '../support/webhook-receiver.js';

beforeAll(() => ensureBuilt(), 180_000);

test('a headless client gets its ask-rule command approved by a later signed callback', async () => {
  const dirs = serverDirs();
  const secret = secretFile();
  let serverUrl: URL | undefined;
  const callbacks: Promise<Response>[] = [];
  const hook = await startReceiver((got: Received, res) => {
    const pending = JSON.stringify({ type: 'approval-answer', id: got.json.id, decision: 'pending' });
    res.writeHead(200, { 'x-dsh-signature': sign(pending) }).end(pending);
    const answer = JSON.stringify({ type: 'approval-answer', id: got.json.id, decision: 'allowed-once' });
    callbacks.push(fetch(new URL(got.json.callback!, serverUrl), { method: 'POST', body: answer, headers: { 'x-dsh-signature': sign(answer) } }));
  });
  const config = path.join(dirs.root, 'dsh.yaml');
  const audit = path.join(dirs.root, 'audit.jsonl');
  writeFileSync(config, 'approval:\n  rules:\n    - { match: touch, action: ask }\n');
  const server = await startHttpServer({
    workspace: dirs.workspace,
    dshHome: dirs.dshHome,
    args: ['--config', config, '--audit-log', audit, '--approval-webhook', hook.url, '--approval-webhook-secret', secret.file],
  });
  serverUrl = server.url;
  try {
    const { client, transport } = await server.connect();
    // The instructions are the server's, sent before it knows the client: they name both, the form on its condition.
    expect(client.getInstructions()).toContain(
      "are answered by: the user, in a form of your MCP client, if the client offers forms; else the operator's approval webhook; else nobody, and the call is refused.",
    );
    const marker = path.join(dirs.workspace, 'approved-later');
    const result = await callTool(client, 'bash', { command: `touch ${marker}`, description: 'Touch' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('(no output)');
    expect(existsSync(marker)).toBe(true);
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.signed).toBe(true);
    const [callback] = await Promise.all(callbacks);
    expect(callback!.status).toBe(200);
    const line = JSON.parse(readFileSync(audit, 'utf8').trim().split('\n').at(-1)!);
    expect(line).toMatchObject({ tool: 'bash', approval: 'allowed-once', answeredBy: 'webhook', outcome: 'ok' });
    await transport.close();
  } finally {
    server.process.kill('SIGTERM');
    await server.exited;
    await hook.close();
    secret.remove();
    dirs.cleanup();
  }
}, 60_000);
