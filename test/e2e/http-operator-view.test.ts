// What an operator sees of the built `serve --http`: audit records joinable with the client's and proxy's logs
// (Mcp-Session-Id, client address through a trusted proxy), refusals counted and logged as JSON lines.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { initializeBody } from '../support/raw-legacy.js';
import { rawRequest } from '../support/raw-http.js';
import { callTool, connectClient, serverDirs, startHttpServer, waitUntil } from '../support/mcp-clients.js';

const ALICE = 'alice-token-0123456789abcdef';

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

test('audit records carry the Mcp-Session-Id and the X-Forwarded-For client of a trusted proxy; 401/403/404 are counted and logged', async () => {
  const dirs = serverDirs();
  const audit = path.join(dirs.root, 'audit.jsonl');
  const tokens = path.join(dirs.root, 'tokens');
  writeFileSync(tokens, `alice:${ALICE}\n`, { mode: 0o600 });
  const server = await startHttpServer({
    ...dirs,
    token: ALICE,
    args: ['--token-file', tokens, '--audit-log', audit, '--trusted-proxy', '127.0.0.1', '--trusted-proxy', '::1', '--log-format', 'json', '--log-level', 'info'],
  });
  try {
    // As a proxy on this machine would send it: the client's address appended to what the client claimed.
    const { client, transport } = await connectClient(server.url, ALICE, { headers: { 'x-forwarded-for': '198.51.100.66, 203.0.113.9' }, name: 'operator-view' });
    await callTool(client, 'bash', { command: 'echo joined', description: 'Run a test command' });
    const [record] = jsonLines(readFileSync(audit, 'utf8'));
    expect(record).toMatchObject({ caller: 'alice', clientSession: transport.sessionId, peer: '203.0.113.9', command: 'echo joined' });
    expect(record!.session).not.toBe(transport.sessionId);

    expect((await rawRequest(server.url, { body: initializeBody() })).status).toBe(401);
    expect((await rawRequest(server.url, { body: initializeBody(), headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    expect((await rawRequest(server.url, { body: initializeBody(), headers: { host: 'evil.example', authorization: `Bearer ${ALICE}` } })).status).toBe(403);
    const unknown = await rawRequest(server.url, { body: initializeBody(), headers: { authorization: `Bearer ${ALICE}`, 'mcp-session-id': 'not-a-session' } });
    expect(unknown.status).toBe(404);

    const metrics = (await rawRequest(new URL('/metrics', server.url), { method: 'GET', headers: { authorization: `Bearer ${ALICE}` } })).body;
    expect(sample(metrics, 'dsh_auth_failures_total')).toBe(2);
    expect(sample(metrics, 'dsh_http_requests_total{code="401"}')).toBe(2);
    expect(sample(metrics, 'dsh_http_requests_total{code="403"}')).toBe(1);
    expect(sample(metrics, 'dsh_http_requests_total{code="404"}')).toBe(1);
    expect(sample(metrics, 'dsh_http_requests_total{code="200"}')).toBeGreaterThan(0);

    await waitUntil(() => jsonLines(server.stderr()).filter((l) => l.event === 'auth_failure').length === 2, 'both failures are logged');
    const failures = jsonLines(server.stderr()).filter((l) => l.event === 'auth_failure');
    expect(failures.map((l) => [l.level, l.status, l.credentials, l.path])).toEqual([
      ['warn', 401, 'none', '/mcp'],
      ['warn', 401, 'wrong', '/mcp'],
    ]);
    for (const line of failures) expect(new Date(line.time as string).toISOString()).toBe(line.time);
    // The raw requests came straight from loopback without X-Forwarded-For: the peer is loopback itself.
    expect(failures[0]!.peer).toBe('127.0.0.1');
    expect(jsonLines(server.stderr()).filter((l) => l.event === 'http_refused').map((l) => l.status)).toEqual([403, 404]);
    // The audit file has them too, after the call's record, one event each; no token or session id in them.
    await waitUntil(() => jsonLines(readFileSync(audit, 'utf8')).length === 5, 'the refusals are audited');
    const refusals = jsonLines(readFileSync(audit, 'utf8')).slice(1);
    expect(refusals.map((r) => [r.event, r.status, r.method, r.path, r.peer])).toEqual([
      ['auth_failure', 401, 'POST', '/mcp', '127.0.0.1'],
      ['auth_failure', 401, 'POST', '/mcp', '127.0.0.1'],
      ['http_refused', 403, 'POST', '/mcp', '127.0.0.1'],
      ['http_refused', 404, 'POST', '/mcp', '127.0.0.1'],
    ]);
    expect(readFileSync(audit, 'utf8')).not.toContain('wrong-token-0123456789');
    expect(readFileSync(audit, 'utf8')).not.toContain('not-a-session');
    // Neither a token nor a session id is ever logged.
    expect(server.stderr()).not.toContain(ALICE);
    expect(server.stderr()).not.toContain('wrong-token-0123456789');
    expect(server.stderr()).not.toContain(transport.sessionId!);
    await client.close();
  } finally {
    server.process.kill('SIGTERM');
    await server.exited;
    dirs.cleanup();
  }
}, 120_000);
