// RunningHttpServer.drain() in process: while draining, what the client sends
// about calls already running (a cancel notification) still reaches them,
// while a new request is refused with 503.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { resolveHttpToken } from '../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { processesWith, uniqueSleep, waitUntil } from '../support/process-table.js';
import { connectClient } from '../support/mcp-clients.js';
import { rawRequest } from '../support/raw-http.js';
import { request } from '../support/raw-legacy.js';

const TOKEN = 'drain-kit-token-0123456789abcdef';
let dir: string;
let host: DshHost;
let server: RunningHttpServer;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-http-drain-'));
  host = await createHost(...localEnvironment({ workspace: dir }));
  server = await serveHttp(host, { workspace: dir, port: 0, auth: resolveHttpToken({ env: { DSH_HTTP_TOKEN: TOKEN } }) });
});

afterAll(async () => {
  await server?.close();
  await host?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test('a client cancel during the drain still reaches its call, which ends the drain long before its timeout', async () => {
  const url = new URL(server.url);
  const { client, transport } = await connectClient(url, TOKEN);
  const sleep = uniqueSleep();
  const cancel = new AbortController();
  const call = client
    .callTool({ name: 'bash', arguments: { command: `sleep ${sleep}`, description: 'Sleep' } }, undefined, { signal: cancel.signal })
    .catch((error: Error) => error);
  await waitUntil(() => processesWith(sleep).length > 0, 'the call runs');

  const started = Date.now();
  const drained = server.drain(120_000);
  const list = JSON.stringify(request(9, 'tools/list'));
  const refused = await rawRequest(url, { headers: { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': transport.sessionId! }, body: list });
  expect([refused.status, refused.headers['retry-after']]).toEqual([503, '5']);
  expect(JSON.parse(refused.body)).toMatchObject({ id: 9, error: { code: -32000 } });

  cancel.abort();
  expect(await call).toBeInstanceOf(Error);
  await drained;
  expect(Date.now() - started).toBeLessThan(30_000);
  await waitUntil(() => processesWith(sleep).length === 0, 'the cancelled call is gone');
  await client.close();
}, 60_000);
