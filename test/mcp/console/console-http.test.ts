// The operator console's HTTP side on a real listener and host: who gets in
// (operator tokens only), the headers every answer carries, the Origin check
// on changes, and the shapes of its JSON API.
import { localEnvironment } from '../../../src/plugins/local.environment.js';
import { resolveOperatorTokens } from '../../../src/mcp/console/operator-tokens.js';
import { resolveHttpToken } from '../../../src/mcp/access/http-auth.js';
import { connectClient } from '../../support/mcp-clients.js';
import { initializeBody } from '../../support/raw-legacy.js';
import { CALLER_TOKENS, consoleRig, OPERATOR_TOKEN, tokenFile, type ConsoleRig } from '../../support/console-kit.js';

let rig: ConsoleRig;
beforeAll(async () => {
  rig = await consoleRig((dir) => localEnvironment({ workspace: dir, logLevel: 'error' }));
});
afterAll(async () => rig.close());

describe('operator console access', () => {
  it('answers its API only to an operator token: none is 401, a caller token is 401, the operator token 200', async () => {
    const none = await rig.api('/console/api/state', { token: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="dsh-console"');
    expect((await none.text()).trim()).toBe('unauthorized: the console needs an operator token (Authorization: Bearer <token>)');
    for (const token of Object.values(CALLER_TOKENS)) expect((await rig.api('/console/api/state', { token })).status).toBe(401);
    expect((await rig.api('/console/api/state', { token: 'oscar-operator-token-012345678X' })).status).toBe(401);
    // Never a cookie, never the URL.
    expect((await rig.api('/console/api/state', { token: null, headers: { cookie: `token=${OPERATOR_TOKEN}` } })).status).toBe(401);
    expect((await rig.api(`/console/api/state?token=${OPERATOR_TOKEN}`, { token: null })).status).toBe(401);
    const ok = await rig.api('/console/api/state');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ operator: 'oscar', sessions: [], approvals: [] });
  });

  it('an operator token is no caller token: /mcp refuses it', async () => {
    const res = await fetch(rig.server.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initializeBody(),
    });
    expect(res.status).toBe(401);
  });

  it('refuses at start an operator token that is also a caller token', () => {
    const callers = resolveHttpToken({ tokenFile: tokenFile(rig.dir, 'callers-2', CALLER_TOKENS) });
    const file = tokenFile(rig.dir, 'operators-2', { oscar: OPERATOR_TOKEN, mallory: CALLER_TOKENS.bob });
    expect(() => resolveOperatorTokens(file, callers)).toThrow(`--operator-token-file ${file}: operator "mallory" has a caller's token; an operator token must be a token of its own`);
  });

  it('serves the page, its script and style with the safety headers, and nothing else under /console', async () => {
    for (const [pathname, type] of [['/console', 'text/html'], ['/console/console.js', 'text/javascript'], ['/console/console.css', 'text/css']] as const) {
      const res = await rig.api(pathname, { token: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain(type);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    const html = await (await rig.api('/console', { token: null })).text();
    // No inline script or style: every script and stylesheet is a file of the console.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc="\/console\/console\.js")/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect((await rig.api('/console/../mcp', { token: null })).status).not.toBe(200);
    expect((await rig.api('/console/secret.txt', { token: null })).status).toBe(404);
    const api401 = await rig.api('/console/api/state', { token: null });
    expect(api401.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('refuses a change sent from another origin, and one from a foreign Host/Origin before that', async () => {
    const port = new URL(rig.origin).port;
    const cross = await rig.api('/console/api/approvals/x', { method: 'POST', body: '{"verdict":"approve"}', headers: { origin: `http://localhost:${port}` } });
    expect(cross.status).toBe(403);
    expect((await cross.text()).trim()).toBe(`forbidden: Origin "http://localhost:${port}" is not this console's`);
    const evil = await rig.api('/console/api/approvals/x', { method: 'POST', body: '{"verdict":"approve"}', headers: { origin: 'http://evil.example' } });
    expect(evil.status).toBe(403);
    const same = await rig.api('/console/api/approvals/x', { method: 'POST', body: '{"verdict":"approve"}', headers: { origin: rig.origin } });
    expect(same.status).toBe(404);
    expect((await rig.api('/console/api/approvals/x', { method: 'POST', body: '{"verdict":"maybe"}' })).status).toBe(400);
    expect((await rig.api('/console/api/approvals/x', { method: 'POST', body: 'not json' })).status).toBe(400);
    expect((await rig.api('/console/api/approvals/x', { method: 'POST', body: 'x'.repeat(10_000) })).status).toBe(413);
    expect((await rig.api('/console/api/state', { method: 'DELETE' })).status).toBe(405);
    expect((await rig.api('/console/api/sessions/%E0%A4%A')).status).toBe(400);
  });

  it('lists the live sessions of both callers with their shapes, and one session in detail', async () => {
    const a = await connectClient(new URL(rig.server.url), CALLER_TOKENS.alice);
    const b = await connectClient(new URL(rig.server.url), CALLER_TOKENS.bob);
    try {
      await a.client.callTool({ name: 'bash', arguments: { command: 'echo hi', description: 'Say hi' } });
      const state = (await (await rig.api('/console/api/state')).json()) as { sessions: Array<Record<string, unknown>> };
      expect(state.sessions.map((s) => s.caller).sort()).toEqual(['alice', 'bob']);
      const alice = state.sessions.find((s) => s.caller === 'alice')!;
      expect(alice).toEqual({
        id: expect.any(String),
        caller: 'alice',
        site: 'local',
        sandboxMode: null,
        openedAt: expect.any(Number),
        lastActiveAt: expect.any(Number),
        shellOpen: false,
        runningTasks: 0,
        tasks: 0,
      });
      const detail = (await (await rig.api(`/console/api/sessions/${alice.id as string}`)).json()) as { calls: Array<Record<string, unknown>>; tasks: unknown[] };
      expect(detail.tasks).toEqual([]);
      expect(detail.calls).toHaveLength(1);
      expect(detail.calls[0]).toMatchObject({ tool: 'bash', command: 'echo hi', caller: 'alice', outcome: 'ok', exitCode: 0 });
      expect((await rig.api('/console/api/sessions/no-such-session')).status).toBe(404);
      const audit = (await (await rig.api('/console/api/audit?caller=bob')).json()) as unknown[];
      expect(audit).toEqual([]);
      const aliceAudit = (await (await rig.api('/console/api/audit?caller=alice&outcome=ok')).json()) as Array<Record<string, unknown>>;
      expect(aliceAudit.map((entry) => entry.command)).toEqual(['echo hi']);
    } finally {
      await a.transport.close();
      await b.transport.close();
    }
  });

  it('streams server-sent events: the state at once, then each new audit entry', async () => {
    const res = await rig.api('/console/api/events');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const nextEvent = async (name: string): Promise<unknown> => {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(`event: ${name}\n`)) return JSON.parse(block.slice(block.indexOf('data: ') + 6));
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    };
    try {
      expect(await nextEvent('state')).toMatchObject({ operator: 'oscar', approvals: [] });
      const a = await connectClient(new URL(rig.server.url), CALLER_TOKENS.alice);
      await a.client.callTool({ name: 'bash', arguments: { command: 'echo streamed', description: 'Say it' } });
      expect(await nextEvent('audit')).toMatchObject({ caller: 'alice', command: 'echo streamed', outcome: 'ok' });
      await a.transport.close();
    } finally {
      await reader.cancel();
    }
  });
});
