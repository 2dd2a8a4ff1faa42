// The approval webhook against a real signed receiver on loopback: what it
// sends and signs, and every way an answer is refused (docs/security/approvals.md).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LocalApprovalService } from '../../../../../src/providers/policy/approval/local-approval-service.js';
import { WebhookApprovalAnswerer } from '../../../../../src/providers/policy/approval/webhook/webhook-answerer.js';
import { resolveWebhookConfig } from '../../../../../src/providers/policy/approval/webhook/webhook-config.js';
import { answerWith, SECRET, sign, startReceiver, type Answer, type Receiver } from '../../../../support/webhook-receiver.js';

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(answer: Answer, secret?: string): Promise<Receiver> {
  const started = await startReceiver(answer, secret);
  receivers.push(started);
  return started;
}

function serviceFor(url: string, timeoutMs = 5_000, secret = SECRET) {
  const answerer = new WebhookApprovalAnswerer(resolveWebhookConfig({ url, secretFile: '/unused', timeoutMs }), secret);
  return { answerer, service: new LocalApprovalService([answerer], { timeoutMs: 60_000 }) };
}

const ask = { kind: 'command', tool: 'bash', command: 'rm -rf build', workdir: '/srv/repo', rule: 'rm', callId: 'call-1' } as const;

describe('WebhookApprovalAnswerer', () => {
  it('POSTs the full request signed, and an allowed-once answer runs the command once', async () => {
    const hook = await receiver(answerWith('allowed-once'));
    const { service } = serviceFor(hook.url);
    // A field a requester attached beyond the typed ones is not sent.
    await expect(service.requestOutcome({ ...ask, internalToken: 'do-not-send' } as typeof ask)).resolves.toEqual({ decision: 'allowed-once', answeredBy: 'webhook' });
    const [got] = hook.received;
    expect(got!.body).not.toContain('do-not-send');
    expect(got!.signed).toBe(true);
    expect(got!.json).toMatchObject({ type: 'approval-request', callback: null });
    expect(got!.json.request).toMatchObject({ kind: 'command', tool: 'bash', command: 'rm -rf build', workdir: '/srv/repo', rule: 'rm', callId: 'call-1' });
    expect(got!.json.request.reason).toContain('Command (1 line): "rm -rf build"');
    expect(Object.keys(got!.json.request).sort()).toEqual(['callId', 'caller', 'command', 'kind', 'reason', 'rule', 'sessionId', 'tool', 'workdir']);
    expect(service.audit()[0]).toMatchObject({ decision: 'allowed-once', answeredBy: 'webhook' });
  });

  it('a rejected answer is the user rejecting it', async () => {
    const hook = await receiver(answerWith('rejected'));
    await expect(serviceFor(hook.url).service.requestOutcome(ask)).resolves.toEqual({ decision: 'rejected', answeredBy: 'webhook' });
  });

  it('a receiver holding another secret cannot verify the request (the signature covers the secret)', async () => {
    const hook = await receiver((got, res) => (got.signed ? answerWith('allowed-once')(got, res) : res.writeHead(401).end()), 'another-secret-0123456789abcdef');
    const { service } = serviceFor(hook.url);
    await expect(service.requestOutcome(ask)).resolves.toMatchObject({ decision: 'failed', answeredBy: 'webhook' });
    expect(hook.received[0]!.signed).toBe(false);
    expect(service.audit()[0]!.detail).toBe('webhook: answered HTTP 401');
  });

  it.each([
    ['signed with another secret', answerWith('allowed-once', 'another-secret-0123456789abcdef'), 'bad signature'],
    ['unsigned', ((got, res) => res.writeHead(200).end(JSON.stringify({ type: 'approval-answer', id: got.json.id, decision: 'allowed-once' }))) as Answer, 'missing x-dsh-signature header'],
    [
      'signed 20 minutes ago (a replay)',
      ((got, res) => {
        const body = JSON.stringify({ type: 'approval-answer', id: got.json.id, decision: 'allowed-once' });
        res.writeHead(200, { 'x-dsh-signature': sign(body, SECRET, Math.floor(Date.now() / 1000) - 1200) }).end(body);
      }) as Answer,
      'more than 300 s',
    ],
  ])('an answer %s approves nothing', async (_what, answer, reason) => {
    const hook = await receiver(answer);
    const { service } = serviceFor(hook.url);
    await expect(service.requestOutcome(ask)).resolves.toMatchObject({ decision: 'failed', answeredBy: 'webhook' });
    expect(service.audit()[0]!.detail).toContain(reason);
  });

  it('an answer signed right but for another approval id approves nothing (a replayed answer)', async () => {
    const hook = await receiver((got, res) => {
      const body = JSON.stringify({ type: 'approval-answer', id: 'an-earlier-approval', decision: 'allowed-once' });
      res.writeHead(200, { 'x-dsh-signature': sign(body) }).end(body);
    });
    const { service } = serviceFor(hook.url);
    await expect(service.requestOutcome(ask)).resolves.toMatchObject({ decision: 'failed' });
    expect(service.audit()[0]!.detail).toBe('webhook: malformed answer (the answer names another approval id)');
  });

  it('a receiver that does not answer within timeoutMs is a refusal with the reason', async () => {
    const hook = await receiver(() => undefined);
    const { service } = serviceFor(hook.url, 200);
    await expect(service.requestOutcome(ask)).resolves.toMatchObject({ decision: 'failed', answeredBy: 'webhook' });
    expect(service.audit()[0]!.detail).toBe('webhook: no answer within 200 ms (approval.webhook.timeoutMs)');
  });

  it('a connection error, a 500 and `pending` without a callback listener are refusals with their reasons', async () => {
    const closed = await receiver(() => undefined);
    await closed.close();
    const failing = await receiver((_got, res) => res.writeHead(500).end('boom'));
    const pending = await receiver(answerWith('pending'));
    const details: string[] = [];
    for (const url of [closed.url, failing.url, pending.url]) {
      const { service } = serviceFor(url);
      await expect(service.requestOutcome(ask)).resolves.toMatchObject({ decision: 'failed' });
      details.push(service.audit()[0]!.detail!);
    }
    expect(details).toEqual([
      expect.stringMatching(/^webhook: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/),
      'webhook: answered HTTP 500',
      "webhook: malformed answer (the answer's decision must be allowed-once or rejected)",
    ]);
  });

  it('never follows a redirect, even to a receiver that would approve', async () => {
    const approver = await receiver(answerWith('allowed-once'));
    const redirector = await receiver((_got, res) => res.writeHead(307, { location: approver.url }).end());
    const { service } = serviceFor(redirector.url);
    await expect(service.requestOutcome(ask)).resolves.toMatchObject({ decision: 'failed' });
    expect(service.audit()[0]!.detail).toBe('webhook: answered HTTP 307; redirects are not followed');
    expect(approver.received).toEqual([]);
  });

  it('an oversize answer is refused unread, declared or streamed', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const declared = await receiver((_got, res) => res.writeHead(200, { 'content-length': String(big.length) }).end(big));
    const streamed = await receiver((_got, res) => {
      res.writeHead(200);
      res.end(big);
    });
    for (const hook of [declared, streamed]) {
      const { service } = serviceFor(hook.url);
      await expect(service.requestOutcome(ask)).resolves.toMatchObject({ decision: 'failed' });
      expect(service.audit()[0]!.detail).toBe('webhook: answer body over 65536 bytes');
    }
  });

  it('a callback that arrives before the response wins, whatever the response does after', async () => {
    let answerer!: WebhookApprovalAnswerer;
    const replies: { status: number; text: string }[] = [];
    const hook = await receiver((got, res) => {
      expect(got.json.callback).toBe(`/approvals/${got.json.id}`);
      const body = JSON.stringify({ type: 'approval-answer', id: got.json.id, decision: 'rejected' });
      replies.push(answerer.receive(got.json.id, sign(body), body));
      res.writeHead(500).end();
    });
    const made = serviceFor(hook.url);
    answerer = made.answerer;
    answerer.offerCallbacks();
    await expect(made.service.requestOutcome(ask)).resolves.toEqual({ decision: 'rejected', answeredBy: 'webhook' });
    expect(replies).toEqual([{ status: 200, text: `approval ${hook.received[0]!.json.id}: rejected recorded` }]);
  });

  it('a dead-slow body (headers sent, body never ends) is cut at timeoutMs', async () => {
    const server = createServer((_req, res) => res.writeHead(200).write('{'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { service } = serviceFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, 200);
      await expect(service.requestOutcome(ask)).resolves.toMatchObject({ decision: 'failed' });
      expect(service.audit()[0]!.detail).toBe('webhook: no answer within 200 ms (approval.webhook.timeoutMs)');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
