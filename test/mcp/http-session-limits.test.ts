// Idle expiry and the session cap of the HTTP server, in process over real
// HTTP with real bash: an expired session's tasks die and its id gets 404;
// one initialize past the cap gets a JSON-RPC error.
import { once, EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import type { SessionEndReason } from '../../src/mcp/legacy/http-sessions.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { isAlivePid, processesWith, uniqueSleep, waitUntil } from '../support/process-table.js';
import { connectClient } from '../support/mcp-clients.js';
import { initializeBody, request } from '../support/raw-legacy.js';
import { rawRequest } from '../support/raw-http.js';

let dir: string;
let host: DshHost;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-http-limits-'));
  host = await createHost(...localEnvironment({ workspace: dir }));
});

afterAll(async () => {
  await host?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A server whose session ends are emitted as `closed` events (id, reason). */
async function start(limits: { idleTimeoutMs?: number; maxSessions?: number }): Promise<{ server: RunningHttpServer; url: URL; ends: EventEmitter }> {
  const ends = new EventEmitter();
  const server = await serveHttp(host, {
    workspace: dir,
    port: 0,
    auth: 'none',
    ...limits,
    onSessionClosed: (id: string, reason: SessionEndReason) => ends.emit('closed', id, reason),
  });
  return { server, url: new URL(server.url), ends };
}

const bash = (command: string, extra: Record<string, unknown> = {}) => ({
  name: 'bash',
  arguments: { command, description: 'Run a test command', ...extra },
});

test('a running background task does not keep an abandoned session: it ends at the idle timeout with its task, and its id gets 404 with the reason', async () => {
  const { server, url, ends } = await start({ idleTimeoutMs: 1500 });
  // About 1000 s, told apart from every other sleep by its digits: it ends only if the session takes it.
  const sleep = uniqueSleep();
  try {
    const { client, transport } = await connectClient(url);
    const id = transport.sessionId!;
    await client.callTool(bash(`sleep ${sleep}`, { run_in_background: true }));
    await waitUntil(() => processesWith(sleep).length > 0, `sleep ${sleep} runs`);
    const ended = once(ends, 'closed');
    // The client goes away without DELETE, as the SDK's close() does.
    await client.close();
    expect(await ended).toEqual([id, 'idle']);
    await waitUntil(() => processesWith(sleep).length === 0, `sleep ${sleep} ended with its session`, 30_000);
    const list = JSON.stringify(request(2, 'tools/list'));
    const reply = await rawRequest(url, { headers: { 'mcp-session-id': id }, body: list });
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body).error.message).toBe(
      'session not found: it was released after 1.5 s without a request (--idle-timeout), with its shell and background tasks; initialize again',
    );
  } finally {
    await server.close();
  }
});

test('an idle session\'s persistent shell dies with it', async () => {
  const persistentHost = await createHost(...localEnvironment({ workspace: dir, shell: 'persistent' }));
  const ends = new EventEmitter();
  const server = await serveHttp(persistentHost, {
    workspace: dir,
    port: 0,
    auth: 'none',
    idleTimeoutMs: 2000,
    onSessionClosed: (id, reason) => ends.emit('closed', id, reason),
  });
  try {
    const { client } = await connectClient(new URL(server.url));
    const result = await client.callTool(bash('echo $$'));
    const shellPid = Number((result.structuredContent as { text: string }).text.trim());
    expect(isAlivePid(shellPid)).toBe(true);
    const ended = once(ends, 'closed');
    await client.close();
    expect((await ended)[1]).toBe('idle');
    await waitUntil(() => !isAlivePid(shellPid), `the persistent shell ${shellPid} is gone`);
  } finally {
    await server.close();
    await persistentHost.dispose();
  }
});

test('a call that runs longer than the idle timeout keeps its session; the clock starts when it ends', async () => {
  const { server, url, ends } = await start({ idleTimeoutMs: 1500 });
  const endsSeen: unknown[] = [];
  ends.on('closed', (...args) => endsSeen.push(args));
  try {
    const { client, transport } = await connectClient(url);
    const id = transport.sessionId!;
    const result = await client.callTool(bash('sleep 3; echo still here'));
    expect(result.content).toEqual([{ type: 'text', text: 'still here' }]);
    expect(endsSeen).toEqual([]);
    const ended = once(ends, 'closed');
    // Its open event stream kept it too; the client leaves without DELETE.
    await client.close();
    expect(await ended).toEqual([id, 'idle']);
  } finally {
    await server.close();
  }
});

test('one initialize past --max-sessions gets a clear JSON-RPC error; a closed session frees its place', async () => {
  const { server, url, ends } = await start({ maxSessions: 2 });
  try {
    const a = await connectClient(url);
    const b = await connectClient(url);
    const refused = await rawRequest(url, { body: initializeBody(7) });
    expect(refused.status).toBe(503);
    // Both hold an event stream open, so only their lifetime (default 24 h) ends them: the refusal says when.
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32000,
        message: expect.stringMatching(
          /^too many sessions: this server holds at most 2 \(--max-sessions\); close one or wait for idle ones to expire \(the next one ends in 86\d{3} s\)$/,
        ),
      },
    });
    expect(refused.headers['mcp-session-id']).toBeUndefined();
    await expect(connectClient(url)).rejects.toThrow(/too many sessions/);
    // The two open sessions keep working.
    expect((await b.client.callTool(bash('echo b'))).content).toEqual([{ type: 'text', text: 'b' }]);

    const ended = once(ends, 'closed');
    await a.transport.terminateSession();
    expect(await ended).toEqual([a.transport.sessionId ?? expect.any(String), 'closed']);
    const c = await connectClient(url);
    expect((await c.client.callTool(bash('echo c'))).content).toEqual([{ type: 'text', text: 'c' }]);
    await Promise.all([a.client.close(), b.client.close(), c.client.close()]);
  } finally {
    await server.close();
  }
});

test('a burst of concurrent initializes cannot pass the cap', async () => {
  const { server, url } = await start({ maxSessions: 3 });
  try {
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => rawRequest(url, { body: initializeBody(i) })));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(3);
    expect(replies.filter((reply) => reply.status === 503)).toHaveLength(7);
  } finally {
    await server.close();
  }
});
