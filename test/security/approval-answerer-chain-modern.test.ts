// The answerer chain in the 2026-07-28 era over real HTTP and real bash: a call
// whose client declares form elicitation gets the `input_required` question
// (the webhook is not asked); one whose client declares none gets the webhook's
// answer at once, with no round trip.
import { mkdtempSync, realpathSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { McpElicitationAnswerer, mcpApprovalModule } from '../../src/mcp/approvals/elicitation-answerer.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { httpDriver, resultOf } from '../support/raw-modern.js';
import { answerWith, secretFile, startReceiver, type Receiver } from '../support/webhook-receiver.js';


describe('the approval answerer chain, 2026-07-28 era', () => {
  let dir: string;
  let host: DshHost;
  let server: RunningHttpServer;
  let hook: Receiver;
  let secret: ReturnType<typeof secretFile>;

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-chain-modern-')));
    secret = secretFile();
    hook = await startReceiver(answerWith('allowed-once'));
    host = await createHost(
      ...localEnvironment({ workspace: dir, logLevel: 'error', approval: { rules: [{ match: 'touch', action: 'ask' }], webhook: { url: hook.url, secretFile: secret.file } } }),
    );
    const answerer = new McpElicitationAnswerer();
    await host.load(mcpApprovalModule(answerer));
    server = await serveHttp(host, { workspace: dir, port: 0, auth: 'none', approvals: answerer });
  });
  afterAll(async () => {
    await server.close();
    await host.dispose();
    await hook.close();
    secret.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  async function call(name: string, capabilities: Record<string, unknown>): Promise<Record<string, unknown>> {
    // No bearer token is checked (auth none): the driver's header is ignored.
    const raw = httpDriver(new URL(server.url), 'unused');
    const params = { name: 'bash', arguments: { command: `touch ${path.join(dir, name)}`, description: 'Write a file' } };
    return resultOf(await raw.request('tools/call', params, { declare: false, capabilities, clientName: 'chain' }));
  }

  it('a client that declares forms gets the question; the webhook is not asked', async () => {
    const result = await call('by-form', { elicitation: { form: {} } });
    expect(result.resultType).toBe('input_required');
    expect(hook.received).toHaveLength(0);
    expect(existsSync(path.join(dir, 'by-form'))).toBe(false);
  });

  it('a client that declares no elicitation gets the webhook answer, no round trip', async () => {
    const result = await call('by-webhook', {});
    expect(result.resultType).not.toBe('input_required');
    expect(result.isError).toBeFalsy();
    expect(hook.received).toHaveLength(1);
    expect(existsSync(path.join(dir, 'by-webhook'))).toBe(true);
  });
});
