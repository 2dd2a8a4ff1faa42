// Shared sessions, 2025 era: two HTTP servers over two hosts share one
// session registry (in memory), as two replicas over one engine would. A
// session initialized on A is served by B under the same Mcp-Session-Id:
// B adopts it from its record (host session id, working directory, the
// client's initialize), only for the caller that opened it; a client's
// DELETE on either ends it on both.
import type { Server } from '@modelcontextprotocol/server';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveHttpToken, type HttpToken } from '../../../src/mcp/access/http-auth.js';
import { McpElicitationAnswerer } from '../../../src/mcp/approvals/elicitation-answerer.js';
import { sessionKey } from '../../../src/providers/registry/session-registry.js';
import { localHttpServers, type TestServer } from '../../support/local-http-server.js';
import { rawRequest, type RawReply } from '../../support/raw-http.js';
import { bashCall, request, resultText, type Message } from '../../support/raw-legacy.js';
import { holdFindsUntilAsked, MemorySessionRegistry } from '../support/memory-session-registry.js';
import { answerIn, postAs } from '../support/legacy-replica-requests.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef00';
const VERSION = '2025-06-18';
const CAPABILITIES = { elicitation: { form: {} } };
const UNKNOWN = 'session not found (expired or closed): initialize again';

const servers = localHttpServers('dsh-adopt-legacy-');
const registry = new MemorySessionRegistry();
const ended: string[] = [];
let endedOne: () => void = () => undefined;
/** B's MCP servers by host session id, as its approvals answerer learns them. */
const serversOnB = new Map<string, Server>();
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  const file = path.join(servers.dir, 'tokens');
  writeFileSync(file, `alice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 });
  const auth: HttpToken = resolveHttpToken({ tokenFile: file, env: {} });
  const endShared = (sessionId: string) => {
    ended.push(sessionId);
    endedOne();
    return Promise.resolve();
  };
  const answerer = new McpElicitationAnswerer();
  const register = answerer.register.bind(answerer);
  answerer.register = (sessionId, server) => {
    serversOnB.set(sessionId, server);
    return register(sessionId, server);
  };
  a = await servers.serve({ auth, registry, endShared });
  b = await servers.serve({ auth, registry, endShared, approvals: answerer });
});

afterAll(async () => {
  await a?.server.close();
  await b?.server.close();
});

function post(server: TestServer, token: string, body: Message, id?: string): Promise<RawReply> {
  return postAs(server.url, token, body, id === undefined ? undefined : { id, version: VERSION });
}

/** Opens a session on `server` for `token`; its Mcp-Session-Id. */
async function initialize(server: TestServer, token = ALICE): Promise<string> {
  const reply = await post(server, token, request(1, 'initialize', { protocolVersion: VERSION, capabilities: CAPABILITIES, clientInfo: { name: 'adopt-test', version: '1' } }));
  expect(reply.status).toBe(200);
  const id = reply.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error(`no session id in ${reply.body}`);
  return id;
}

/** The DSH_SESSION_ID a command of session `id` sees on `server`. */
async function sessionIdSeen(server: TestServer, id: string): Promise<string> {
  const reply = await post(server, ALICE, bashCall(3, 'echo "id=$DSH_SESSION_ID"'), id);
  expect(reply.status).toBe(200);
  return /id=(\S+)/.exec(resultText(answerIn(reply)))?.[1] ?? resultText(answerIn(reply));
}

test('a session initialized on A is recorded, and B serves it under the same id as the same host session', async () => {
  const id = await initialize(a);
  const onA = await sessionIdSeen(a, id);
  expect(registry.records.get(sessionKey(id))).toMatchObject({ era: 'legacy', caller: 'alice', sessionId: onA, client: { protocolVersion: VERSION, capabilities: CAPABILITIES } });
  // The registry never holds the credential itself.
  expect(JSON.stringify([...registry.records.values()])).not.toContain(id);

  const listed = await post(b, ALICE, request(2, 'tools/list'), id);
  expect(listed.status).toBe(200);
  expect((answerIn(listed).result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toContain('bash');
  expect(await sessionIdSeen(b, id)).toBe(onA);
  // B's server knows the client as A's did: its capabilities (elicitation approvals) and protocol version.
  const server = serversOnB.get(onA);
  expect(server?.getClientCapabilities()).toEqual(CAPABILITIES);
  expect(server?.getNegotiatedProtocolVersion()).toBe(VERSION);
  expect(server?.getClientVersion()).toEqual({ name: 'adopt-test', version: '1' });
});

test("another caller's request with the id reads like an unknown id on B, whether B holds the session or not", async () => {
  const id = await initialize(a);
  const unknownOnB = await post(b, BOB, request(2, 'tools/list'), id);
  expect(unknownOnB.status).toBe(404);
  expect(answerIn(unknownOnB)).toMatchObject({ error: { code: -32001, message: UNKNOWN } });
  expect(answerIn(await post(b, BOB, request(2, 'tools/list'), 'no-such-session'))).toEqual(answerIn(unknownOnB));
  // Alice's own request adopts it; Bob still gets the same answer, and Alice keeps her session.
  expect((await post(b, ALICE, request(2, 'tools/list'), id)).status).toBe(200);
  const heldOnB = await post(b, BOB, request(3, 'tools/list'), id);
  expect(heldOnB.status).toBe(404);
  expect(answerIn(heldOnB)).toEqual(answerIn(unknownOnB));
  expect((await rawRequest(b.url, { method: 'DELETE', headers: { authorization: `Bearer ${BOB}`, 'mcp-session-id': id } })).status).toBe(404);
  expect(registry.records.has(sessionKey(id))).toBe(true);
  expect((await post(a, ALICE, request(4, 'tools/list'), id)).status).toBe(200);
});

test('concurrent first requests on B adopt the session once', async () => {
  const id = await initialize(a);
  const done = holdFindsUntilAsked(registry, 4);
  try {
    const replies = await Promise.all([5, 6, 7, 8].map((n) => post(b, ALICE, request(n, 'tools/list'), id)));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect(registry.finds.get(sessionKey(id))).toBe(1);
  } finally {
    done();
  }
});

test("a DELETE on B removes the record and ends the sandbox everywhere; A's and B's later requests are refused", async () => {
  const id = await initialize(a);
  const hostSession = await sessionIdSeen(a, id);
  expect(await sessionIdSeen(b, id)).toBe(hostSession);
  const closedOnA = new Promise<string>((resolve) => a.ends.on('closed', (closed: string, reason: string) => closed === id && resolve(reason)));
  const deleted = await rawRequest(b.url, { method: 'DELETE', headers: { authorization: `Bearer ${ALICE}`, 'mcp-session-id': id } });
  expect(deleted.status).toBe(200);
  // Answered once the record is gone and the sandbox ended.
  expect(registry.records.has(sessionKey(id))).toBe(false);
  expect(ended).toEqual([hostSession]);

  const onB = await post(b, ALICE, request(9, 'tools/list'), id);
  expect(onB.status).toBe(404);
  expect(answerIn(onB)).toMatchObject({ error: { message: UNKNOWN } });
  // A still held it: its touch finds the record gone, so A lets go of it and answers as for an unknown id.
  const onA = await post(a, ALICE, request(10, 'tools/list'), id);
  expect(onA.status).toBe(404);
  expect(answerIn(onA)).toMatchObject({ error: { message: UNKNOWN } });
  await closedOnA;
  expect((await post(a, ALICE, request(11, 'tools/list'), id)).status).toBe(404);
  expect(ended).toEqual([hostSession]);
});

test('a DELETE on the replica that opened it ends it as well', async () => {
  const id = await initialize(a);
  const hostSession = await sessionIdSeen(a, id);
  const endedNow = new Promise<void>((resolve) => (endedOne = resolve));
  expect((await rawRequest(a.url, { method: 'DELETE', headers: { authorization: `Bearer ${ALICE}`, 'mcp-session-id': id } })).status).toBe(200);
  await endedNow;
  expect(ended.at(-1)).toBe(hostSession);
  expect(registry.records.has(sessionKey(id))).toBe(false);
  expect((await post(b, ALICE, request(2, 'tools/list'), id)).status).toBe(404);
});

test('a replica letting a session go (evicted to make room, or at shutdown) leaves its record: the session lives on and is adopted again', async () => {
  const auth = resolveHttpToken({ tokenFile: path.join(servers.dir, 'tokens'), env: {} });
  const endedBefore = ended.length;
  // One session at most, and any idle one may make room at once.
  const c = await servers.serve({ auth, registry, endShared: () => Promise.resolve(void ended.push('c')), maxSessions: 1, evictAfterMs: 0 });
  let first = '';
  let second = '';
  try {
    first = await initialize(a);
    const hostSession = await sessionIdSeen(a, first);
    expect(await sessionIdSeen(c, first)).toBe(hostSession);
    const released = new Promise<string>((resolve) => c.ends.on('closed', (closed: string, reason: string) => closed === first && resolve(reason)));
    second = await initialize(c);
    expect(await released).toBe('evicted');
    expect(registry.records.has(sessionKey(first))).toBe(true);
    expect((await post(a, ALICE, request(2, 'tools/list'), first)).status).toBe(200);
    // Asked again, C serves it again (making room in turn), in the same host session.
    expect(await sessionIdSeen(c, first)).toBe(hostSession);
    expect(registry.records.has(sessionKey(second))).toBe(true);
  } finally {
    await c.server.close();
  }
  // Its shutdown lets go of both here, ending neither.
  expect(registry.records.has(sessionKey(first)) && registry.records.has(sessionKey(second))).toBe(true);
  expect(ended.length).toBe(endedBefore);
  expect((await post(a, ALICE, request(3, 'tools/list'), second)).status).toBe(200);
});
