// GET /healthz and /readyz of the real HTTP server: no token, no Host check,
// nothing revealed but ready or not and why; readiness follows every bound
// ReadinessCheck (the container engine's among them), read when asked.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../../src/container/create-host.js';
import type { DshHost } from '../../../src/container/dsh-host.js';
import { PluginModule } from '../../../src/core/plugin-module.js';
import { resolveHttpToken } from '../../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../../src/mcp/http-server.js';
import { containerEnvironment } from '../../../src/plugins/container.environment.js';
import { localEnvironment } from '../../../src/plugins/local.environment.js';
import { bindReadinessCheck } from '../../../src/providers/health/readiness-check.js';
import { describeWithEngine, NEEDS_ENGINE, TEST_IMAGE } from '../../support/container-engine.js';
import { rawRequest } from '../../support/raw-http.js';

let dir: string;
const running: Array<{ host: DshHost; server: RunningHttpServer }> = [];

beforeAll(() => void (dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-health-'))));
afterAll(async () => {
  for (const { host, server } of running) {
    await server.close();
    await host.dispose();
  }
  rmSync(dir, { recursive: true, force: true });
});

async function serve(host: DshHost): Promise<URL> {
  const token = resolveHttpToken({ env: { DSH_HTTP_TOKEN: 'health-test-token-0123456789' } });
  const server = await serveHttp(host, { workspace: dir, port: 0, auth: token });
  running.push({ host, server });
  return new URL(server.url);
}

const get = (url: URL, pathname: string, headers: Record<string, string> = {}) =>
  rawRequest(new URL(pathname, url), { method: 'GET', headers });

test('a local composition: /healthz "ok" and /readyz "ready" without a token, whatever the Host; nothing else in the body', async () => {
  const url = await serve(await createHost(...localEnvironment({ workspace: dir })));
  const variants: Array<Record<string, string>> = [{}, { host: 'pod-10-1-2-3.example:8765' }, { authorization: 'Bearer wrong' }];
  for (const headers of variants) {
    const health = await get(url, '/healthz', headers);
    expect([health.status, health.body, health.headers['cache-control']]).toEqual([200, 'ok\n', 'no-store']);
    const ready = await get(url, '/readyz', headers);
    expect([ready.status, ready.body]).toEqual([200, 'ready\n']);
  }
  const post = await rawRequest(new URL('/readyz', url), { body: '{}' });
  expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
  expect((await get(url, '/healthz/extra')).status).toBe(404);
});

test('a plugin joins readiness with bindReadinessCheck: 503 with its reason while it is not ready, read at each request', async () => {
  const host = await createHost(...localEnvironment({ workspace: dir }));
  let reason: string | undefined = 'the cluster API does not answer';
  await host.load(new PluginModule('test:readiness', (options) => bindReadinessCheck(options, () => ({ name: 'cluster', check: async () => reason }))));
  const url = await serve(host);
  const notReady = await get(url, '/readyz');
  expect([notReady.status, notReady.body]).toEqual([503, 'not ready: the cluster API does not answer\n']);
  expect((await get(url, '/healthz')).status).toBe(200);
  reason = undefined;
  expect((await get(url, '/readyz')).status).toBe(200);
});

test('a check that throws or hangs reads as not ready, named, without its error text', async () => {
  const host = await createHost(...localEnvironment({ workspace: dir }));
  await host.load(
    new PluginModule('test:broken', (options) =>
      bindReadinessCheck(options, () => ({ name: 'vault', check: () => Promise.reject(new Error('secret endpoint https://10.0.0.9')) })),
    ),
  );
  const ready = await get(await serve(host), '/readyz');
  expect([ready.status, ready.body]).toEqual([503, 'not ready: vault: the check failed\n']);
});

test('container composition whose engine does not answer: 503 "the container engine does not answer"', async () => {
  const host = await createHost(
    ...containerEnvironment({ workspace: dir, container: { image: TEST_IMAGE, host: `unix://${path.join(dir, 'no-engine.sock')}` } }),
  );
  const ready = await get(await serve(host), '/readyz');
  expect([ready.status, ready.body]).toEqual([503, 'not ready: the container engine does not answer\n']);
});

describeWithEngine(`container composition with a running engine${NEEDS_ENGINE}`, () => {
  it('is ready', async () => {
    const host = await createHost(...containerEnvironment({ workspace: dir, container: { image: TEST_IMAGE } }));
    const ready = await get(await serve(host), '/readyz');
    expect([ready.status, ready.body]).toEqual([200, 'ready\n']);
  });
});
