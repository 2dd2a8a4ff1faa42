// /metrics is behind the bearer token (and the Host check) unless --metrics-public; public metrics open nothing else.
import { createHost, localEnvironment, type DshHost } from '../../src/index.js';
import { resolveHttpToken } from '../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { startMetricsListener } from '../../src/mcp/endpoints/metrics-endpoint.js';
import { initializeBody } from '../support/raw-legacy.js';
import { rawRequest } from '../support/raw-http.js';
import { tempDir } from '../support/observability-kit.js';

const TOKEN = 'observe-token-0123456789abcdef';

describe.each([false, true])('GET /metrics with metricsPublic %s', (metricsPublic) => {
  let host: DshHost;
  let server: RunningHttpServer;
  let tmp: ReturnType<typeof tempDir>;
  let metricsUrl: URL;

  beforeAll(async () => {
    tmp = tempDir('observe-metrics-');
    host = await createHost(...localEnvironment({ workspace: tmp.dir }));
    const auth = resolveHttpToken({ env: { DSH_HTTP_TOKEN: TOKEN } });
    server = await serveHttp(host, { workspace: tmp.dir, port: 0, auth, metricsPublic });
    metricsUrl = new URL('/metrics', server.url);
  });
  afterAll(async () => {
    await server.close();
    await host.dispose();
    tmp.remove();
  });

  const get = (headers: Record<string, string> = {}) => rawRequest(metricsUrl, { method: 'GET', headers });

  it('answers a request with the token', async () => {
    const reply = await get({ authorization: `Bearer ${TOKEN}` });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(reply.body).toContain('# TYPE dsh_tool_calls_total counter');
  });

  it(metricsPublic ? 'answers without a token' : 'refuses a missing or wrong token with 401', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-token-at-all' }] as Record<string, string>[]) {
      const reply = await get(headers);
      expect(reply.status).toBe(metricsPublic ? 200 : 401);
      if (!metricsPublic) expect(reply.body).not.toContain('dsh_');
    }
  });

  it('refuses a forged Host header (DNS rebinding) even when public', async () => {
    const reply = await get({ host: 'attacker.example', authorization: `Bearer ${TOKEN}` });
    expect(reply.status).toBe(403);
    expect(reply.body).not.toContain('dsh_');
  });

  it('keeps the MCP endpoint behind the token', async () => {
    const reply = await rawRequest(new URL(server.url), { body: initializeBody() });
    expect(reply.status).toBe(401);
  });

  it('refuses other methods', async () => {
    const reply = await rawRequest(metricsUrl, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{}' });
    expect(reply.status).toBe(405);
  });
});

describe('the --metrics-port listener', () => {
  it('listens on loopback only, serves /metrics alone, and refuses a forged Host', async () => {
    const tmp = tempDir('observe-metrics-port-');
    const host = await createHost(...localEnvironment({ workspace: tmp.dir }));
    const listener = await startMetricsListener(host, 0);
    try {
      const url = new URL(listener.url);
      expect(url.hostname).toBe('127.0.0.1');
      expect((await rawRequest(url, { method: 'GET' })).status).toBe(200);
      expect((await rawRequest(url, { method: 'GET', headers: { host: 'rebound.example:80' } })).status).toBe(403);
      expect((await rawRequest(new URL('/mcp', url), { body: initializeBody() })).status).toBe(404);
    } finally {
      await listener.close();
      await host.dispose();
      tmp.remove();
    }
  });
});
