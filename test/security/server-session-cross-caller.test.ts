// Named tokens: each HTTP session belongs to the caller whose token opened
// it. Caller B, holding a valid token of its own and caller A's session id,
// can neither use nor close A's session; the answer (404) is the one an
// unknown id gets, so B does not even learn the session exists.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import type { HostSession } from '../../src/container/host-session.js';
import { resolveHttpToken, type HttpToken } from '../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { connectClient } from '../support/mcp-clients.js';
import { bashCall, initializeBody, request } from '../support/raw-legacy.js';
import { rawRequest } from '../support/raw-http.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef00';
let dir: string;
let host: DshHost;
let token: HttpToken;
let server: RunningHttpServer;
let url: URL;
const opened: HostSession[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-cross-caller-'));
  const file = path.join(dir, 'tokens');
  writeFileSync(file, `# who may call\nalice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 });
  token = resolveHttpToken({ tokenFile: file, env: {} });
  host = await createHost(...localEnvironment({ workspace: dir }));
  const open = host.openSession.bind(host);
  host.openSession = (options) => {
    const session = open(options);
    opened.push(session);
    return session;
  };
  server = await serveHttp(host, { workspace: dir, port: 0, auth: token, maxSessionsPerCaller: 1 });
  url = new URL(server.url);
});

afterAll(async () => {
  await server?.close();
  await host?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const listBody = JSON.stringify(request(7, 'tools/list'));
const callBody = JSON.stringify(bashCall(8, 'touch stolen', {}, 'Use a stolen session'));

test('the token file names the callers; each session records who opened it', async () => {
  expect(token.callers).toEqual(['alice', 'bob']);
  const { client, transport } = await connectClient(url, ALICE);
  try {
    expect(opened.at(-1)?.caller).toBe('alice');
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test("caller B with its own valid token cannot use, stream or close caller A's session (404 like an unknown id)", async () => {
  const alice = await connectClient(url, ALICE);
  try {
    const id = alice.transport.sessionId!;
    const bob = { authorization: `Bearer ${BOB}`, 'mcp-session-id': id };
    for (const body of [listBody, callBody]) {
      const reply = await rawRequest(url, { headers: bob, body });
      expect(reply.status).toBe(404);
      expect(JSON.parse(reply.body)).toMatchObject({ error: { message: 'session not found (expired or closed): initialize again' } });
    }
    expect((await rawRequest(url, { method: 'GET', headers: bob })).status).toBe(404);
    expect((await rawRequest(url, { method: 'DELETE', headers: bob })).status).toBe(404);
    // Nothing ran as Alice, and her session still works for her.
    const result = await alice.client.callTool({ name: 'bash', arguments: { command: 'ls', description: 'List files' } });
    expect(JSON.stringify(result.content)).not.toContain('stolen');
    expect((await rawRequest(url, { headers: { authorization: `Bearer ${ALICE}`, 'mcp-session-id': id }, body: listBody })).status).toBe(200);
  } finally {
    await alice.transport.terminateSession();
    await alice.client.close();
  }
});

test('--max-sessions-per-caller 1: a second session of the same caller is refused, another caller still gets one', async () => {
  const first = await connectClient(url, ALICE);
  try {
    const second = await rawRequest(url, { headers: { authorization: `Bearer ${ALICE}` }, body: initializeBody(3) });
    expect(second.status).toBe(503);
    expect(JSON.parse(second.body)).toMatchObject({
      id: 3,
      error: {
        message: expect.stringMatching(
          /^too many sessions for caller "alice": at most 1 each \(--max-sessions-per-caller\); close one or wait for idle ones to expire \(the next one ends in \d+ s\)$/,
        ),
      },
    });
    const bob = await connectClient(url, BOB);
    expect(opened.at(-1)?.caller).toBe('bob');
    await bob.transport.terminateSession();
    await bob.client.close();
  } finally {
    await first.transport.terminateSession();
    await first.client.close();
  }
});

test('token files that name a caller twice or give two callers one token are refused at start', () => {
  const twice = path.join(dir, 'twice');
  writeFileSync(twice, `alice:${ALICE}\nalice:${BOB}\n`, { mode: 0o600 });
  expect(() => resolveHttpToken({ tokenFile: twice })).toThrow(`--token-file ${twice}: the caller name "alice" appears twice`);
  const shared = path.join(dir, 'shared');
  writeFileSync(shared, `alice:${ALICE}\nbob:${ALICE}\n`, { mode: 0o600 });
  expect(() => resolveHttpToken({ tokenFile: shared })).toThrow(`--token-file ${shared}: caller "bob" has the same token as another caller`);
  const bad = path.join(dir, 'bad');
  writeFileSync(bad, `alice:${ALICE}\njust-a-token-without-a-name\n`, { mode: 0o600 });
  expect(() => resolveHttpToken({ tokenFile: bad })).toThrow(`--token-file ${bad}: line 2 is not "name:token"`);
  const weak = path.join(dir, 'weak');
  writeFileSync(weak, `alice:${ALICE}\nbob:short\n`, { mode: 0o600 });
  expect(() => resolveHttpToken({ tokenFile: weak })).toThrow(`the HTTP token from --token-file ${weak} (caller bob) is too short`);
});
