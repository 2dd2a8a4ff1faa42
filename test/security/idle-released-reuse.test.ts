// A session the server released (idle) leaves its id or handle behind in its
// client's hands and in any stolen copy. Neither brings it back: the owner is
// told why it is gone, anyone else gets exactly the answer of an id that
// never existed (so a stolen id reveals nothing), and nothing runs.
import { once, EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { resolveHttpToken } from '../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { unknownHandleMessage } from '../../src/mcp/sessions/session-handles.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { handleIn, modernHttp, modernText } from '../support/modern-client.js';
import { waitUntil } from '../support/process-table.js';
import { connectClient } from '../support/mcp-clients.js';
import { rawRequest } from '../support/raw-http.js';
import { bashCall } from '../support/raw-legacy.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef00';
let dir: string;
let host: DshHost;
let server: RunningHttpServer;
let url: URL;
const ends = new EventEmitter();
const logged: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-idle-reuse-'));
  const tokenFile = path.join(dir, 'tokens');
  writeFileSync(tokenFile, `alice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 });
  host = await createHost(...localEnvironment({ workspace: dir, shell: 'persistent' }));
  const logger = { debug: () => undefined, info: (line: string) => void logged.push(line), warn: () => undefined, error: () => undefined };
  server = await serveHttp(host, {
    workspace: dir,
    port: 0,
    auth: resolveHttpToken({ tokenFile, env: {} }),
    idleTimeoutMs: 1000,
    logger,
    onSessionClosed: (id, reason) => ends.emit('closed', id, reason),
  });
  url = new URL(server.url);
});
afterAll(async () => {
  await server?.close();
  await host?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const as = (token: string, id: string) => ({ authorization: `Bearer ${token}`, 'mcp-session-id': id });

test('a released 2025 session id: bob gets the 404 of an unknown id, alice the reason; neither can call through it', async () => {
  const alice = await connectClient(url, ALICE);
  const id = alice.transport.sessionId!;
  const released = once(ends, 'closed');
  await alice.client.close();
  expect(await released).toEqual([id, 'idle']);
  const marker = path.join(dir, 'ran-2025');
  const call = JSON.stringify(bashCall(5, `touch ${marker}`, {}, 'Reuse'));
  const asBob = await rawRequest(url, { headers: as(BOB, id), body: call });
  const asAlice = await rawRequest(url, { headers: as(ALICE, id), body: call });
  expect([asBob.status, JSON.parse(asBob.body).error.message]).toEqual([404, 'session not found (expired or closed): initialize again']);
  expect([asAlice.status, JSON.parse(asAlice.body).error.message]).toEqual([
    404,
    'session not found: it was released after 1 s without a request (--idle-timeout), with its shell and background tasks; initialize again',
  ]);
  expect(existsSync(marker)).toBe(false);
}, 60_000);

test('a released session handle: bob gets the Error of an unknown handle, alice the reason; nothing runs for either', async () => {
  const alice = await modernHttp(url, ALICE);
  const bob = await modernHttp(url, BOB);
  try {
    const made = modernText(await alice.callTool({ name: 'bash', arguments: { command: 'echo kept', description: 'Keep a shell' } }));
    const handle = handleIn(made)!;
    expect(handle).toBeDefined();
    const endsBefore = logged.filter((line) => line.endsWith('ended (idle)')).length;
    await waitUntil(() => logged.filter((line) => line.endsWith('ended (idle)')).length > endsBefore, 'the handle\'s session is released');
    const marker = path.join(dir, 'ran-handle');
    const use = (client: typeof alice) => client.callTool({ name: 'bash', arguments: { command: `touch ${marker}`, description: 'Reuse', session: handle } });
    const asBob = await use(bob);
    const asAlice = await use(alice);
    expect([asBob.isError, modernText(asBob)]).toEqual([true, `Error: ${unknownHandleMessage(handle)}`]);
    expect([asAlice.isError, modernText(asAlice)]).toEqual([
      true,
      `Error: session handle "${handle}" is gone: it was released after 1 s without a request (--idle-timeout), with its shell and background tasks; call again without "session" to start a fresh session`,
    ]);
    expect(existsSync(marker)).toBe(false);
  } finally {
    await Promise.all([alice.close(), bob.close()]);
  }
}, 60_000);
