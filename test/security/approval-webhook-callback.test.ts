// The approval webhook's later answer: a real host with an `ask` rule, real
// bash, the real HTTP listener's `POST /approvals/<id>`, and a signed loopback
// receiver that answers `pending` and calls back. Attacks: a callback with a
// bad or stale signature, for another id, replayed, oversize, unknown.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { ApprovalService } from '../../src/providers/policy/approval/approval-service.js';
import { answerWith, secretFile, sign, startReceiver, type Receiver } from '../support/webhook-receiver.js';

interface Rig {
  readonly host: DshHost;
  readonly server: RunningHttpServer;
  readonly hook: Receiver;
  readonly dir: string;
  post(pathname: string, body: string, signature?: string): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

async function rig(answer: Parameters<typeof startReceiver>[0], approvalTimeoutMs = 30_000): Promise<Rig> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-webhook-cb-'));
  const secret = secretFile();
  const hook = await startReceiver(answer);
  const host = await createHost(
    ...localEnvironment({
      workspace: dir,
      logLevel: 'error',
      audit: { file: path.join(dir, 'audit.jsonl') },
      approval: { timeoutMs: approvalTimeoutMs, rules: [{ match: 'touch', action: 'ask' }], webhook: { url: hook.url, secretFile: secret.file, timeoutMs: 5_000 } },
    }),
  );
  const server = await serveHttp(host, { workspace: dir, port: 0, auth: 'none' });
  const base = new URL(server.url);
  return {
    host,
    server,
    hook,
    dir,
    post: async (pathname, body, signature) => {
      const res = await fetch(new URL(pathname, base), { method: 'POST', body, headers: signature === undefined ? {} : { 'x-dsh-signature': signature } });
      return { status: res.status, text: (await res.text()).trim() };
    },
    close: async () => {
      await server.close();
      await host.dispose();
      await hook.close();
      secret.remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const answerBody = (id: string, decision: string) => JSON.stringify({ type: 'approval-answer', id, decision });
const textOf = (result: { content: readonly { type: string; text?: string }[] }) => result.content.map((block) => block.text ?? '').join('');

describe('approval webhook callbacks (POST /approvals/<id>)', () => {
  let r: Rig;
  afterEach(async () => r.close());

  it('a slow answer arrives by signed callback and runs the command; forged, misdirected and replayed callbacks are refused', async () => {
    r = await rig(answerWith('pending'));
    const marker = path.join(r.dir, 'approved');
    const call = r.host.openSession({ cwd: r.dir }).call('bash', { command: `touch ${marker}`, description: 'Touch' });
    const got = await r.hook.nth(0);
    const { id } = got.json;
    expect(got.signed).toBe(true);
    expect(got.json.callback).toBe(`/approvals/${id}`);
    const good = answerBody(id, 'allowed-once');

    expect(await r.post(`/approvals/${id}`, good)).toEqual({ status: 401, text: 'approval answer refused: missing x-dsh-signature header' });
    expect(await r.post(`/approvals/${id}`, good, sign(good, 'not-the-secret-0123456789abcdef'))).toEqual({ status: 401, text: 'approval answer refused: bad signature' });
    expect((await r.post(`/approvals/${id}`, good, sign(good, undefined, Math.floor(Date.now() / 1000) - 1000))).status).toBe(401);
    // A signature over other bytes than those sent: the body was changed on the way.
    expect((await r.post(`/approvals/${id}`, answerBody(id, 'allowed-once '), sign(good))).text).toBe('approval answer refused: bad signature');
    const otherId = answerBody('another-approval', 'allowed-once');
    expect(await r.post(`/approvals/${id}`, otherId, sign(otherId))).toEqual({ status: 400, text: 'approval answer refused: the answer names another approval id' });
    const pending = answerBody(id, 'pending');
    expect((await r.post(`/approvals/${id}`, pending, sign(pending))).status).toBe(400);
    const huge = 'x'.repeat(70 * 1024);
    expect((await r.post(`/approvals/${id}`, huge, sign(huge))).status).toBe(413);
    // The same without a declared length (chunked): read to its end, and refused.
    const chunked = await fetch(new URL(`/approvals/${id}`, r.server.url), {
      method: 'POST',
      body: new Blob([huge]).stream(),
      headers: { 'x-dsh-signature': sign(huge) },
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(existsSync(marker)).toBe(false);

    const header = sign(good);
    expect(await r.post(`/approvals/${id}`, good, header)).toEqual({ status: 200, text: `approval ${id}: allowed-once recorded` });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(existsSync(marker)).toBe(true);
    expect(r.host.get(ApprovalService).audit().at(-1)).toMatchObject({ decision: 'allowed-once', answeredBy: 'webhook', request: { command: `touch ${marker}` } });

    // The same signed bytes again, within the replay window: already answered.
    expect(await r.post(`/approvals/${id}`, good, header)).toEqual({ status: 409, text: `approval answer refused: approval ${id} was already answered, withdrawn or timed out` });
    const unknown = answerBody('00000000-0000-4000-8000-000000000000', 'allowed-once');
    expect((await r.post('/approvals/00000000-0000-4000-8000-000000000000', unknown, sign(unknown))).status).toBe(404);
    expect((await fetch(new URL(`/approvals/${id}`, r.server.url))).status).toBe(405);
  });

  it("a command of this server cannot answer an approval, even with the right signature; the same callback from outside can", async () => {
    r = await rig(answerWith('pending'));
    const marker = path.join(r.dir, 'approved-by-command');
    const call = r.host.openSession({ cwd: r.dir }).call('bash', { command: `touch ${marker}`, description: 'Touch' });
    const { id } = (await r.hook.nth(0)).json;
    const good = answerBody(id, 'allowed-once');
    const header = sign(good);
    // The signature is handed to the command: the refusal must not rest on the secret being hidden.
    const script = `fetch(${JSON.stringify(new URL(`/approvals/${id}`, r.server.url).href)}, { method: 'POST', body: ${JSON.stringify(good)}, headers: { 'x-dsh-signature': ${JSON.stringify(header)} } }).then(async (res) => console.log('status', res.status, await res.text()))`;
    const attacker = await r.host.openSession({ cwd: r.dir }).call('bash', { command: `${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}`, description: 'Answer it myself' });
    expect(textOf(attacker)).toMatch(/status 403 forbidden: this connection comes from a command of a dsh-tools server \(pid \d+\); a command cannot open or use a session of this server, nor answer its approvals/);
    expect(existsSync(marker)).toBe(false);
    expect(await r.post(`/approvals/${id}`, good, header)).toEqual({ status: 200, text: `approval ${id}: allowed-once recorded` });
    expect((await call).isError).toBeFalsy();
    expect(existsSync(marker)).toBe(true);
  });

  it('a rejection by callback is the user rejecting it, and nothing runs', async () => {
    r = await rig(answerWith('pending'));
    const marker = path.join(r.dir, 'rejected');
    const call = r.host.openSession({ cwd: r.dir }).call('bash', { command: `touch ${marker}`, description: 'Touch' });
    const { id } = (await r.hook.nth(0)).json;
    const body = answerBody(id, 'rejected');
    expect((await r.post(`/approvals/${id}`, body, sign(body))).status).toBe(200);
    expect(textOf(await call)).toBe('Error: command rejected by the user');
    expect(existsSync(marker)).toBe(false);
  });

  it('no callback within approval.timeoutMs times out; the late callback is refused', async () => {
    r = await rig(answerWith('pending'), 300);
    const marker = path.join(r.dir, 'late');
    const result = await r.host.openSession({ cwd: r.dir }).call('bash', { command: `touch ${marker}`, description: 'Touch' });
    expect(textOf(result)).toBe('Error: command not approved: no answer within 0.3s');
    const { id } = r.hook.received[0]!.json;
    const body = answerBody(id, 'allowed-once');
    expect((await r.post(`/approvals/${id}`, body, sign(body))).status).toBe(409);
    expect(existsSync(marker)).toBe(false);
  });

  it('a broken receiver is a refusal the model reads as the approver failing, with the reason in the audit record', async () => {
    r = await rig((_got, res) => res.writeHead(502).end());
    const result = await r.host.openSession({ cwd: r.dir }).call('bash', { command: `touch ${path.join(r.dir, 'x')}`, description: 'Touch' });
    expect(textOf(result)).toBe('Error: command not approved: the approver failed');
    expect(r.host.get(ApprovalService).audit().at(-1)).toMatchObject({ decision: 'failed', answeredBy: 'webhook', detail: 'webhook: answered HTTP 502' });
    const line = JSON.parse(readFileSync(path.join(r.dir, 'audit.jsonl'), 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(line).toMatchObject({ approval: 'failed', answeredBy: 'webhook', approvalDetail: 'webhook: answered HTTP 502', outcome: 'denied' });
  });
});
