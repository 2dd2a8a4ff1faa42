// RunningHttpServer.drain() in process: while draining, what the client sends
// about calls already running (a cancel notification) still reaches them,
// while a new request is refused with 503.
import { resolveHttpToken } from '../../src/mcp/access/http-auth.js';
import type { RunningHttpServer } from '../../src/mcp/http-server.js';
import { localHttpServerForSuite } from '../support/local-http-server.js';
import { processesWith, uniqueSleep, waitUntil } from '../support/process-table.js';
import { connectClient } from '../support/mcp-clients.js';
import { rawRequest } from '../support/raw-http.js';
import { request } from '../support/raw-legacy.js';

const TOKEN = 'drain-kit-token-0123456789abcdef';
const suite = localHttpServerForSuite('dsh-http-drain-', () => ({ auth: resolveHttpToken({ env: { DSH_HTTP_TOKEN: TOKEN } }) }));
let server: RunningHttpServer;
beforeAll(() => void (server = suite.server));

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
