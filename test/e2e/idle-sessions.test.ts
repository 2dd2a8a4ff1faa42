// Issue 22 item 4 with the real 1.x SDK client over HTTP: clients that never
// DELETE do not lock out new sessions once idle; a client that only holds its
// event stream keeps its session (and its task's result) past --idle-timeout;
// an idle session loses its shell first, and says so in its next result. A
// task nobody reads or waits on does not keep a session (issue 34.4:
// abandoned-sessions.test.ts).
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { once, EventEmitter } from 'node:events';
import type { HttpServeOptions } from '../../src/mcp/http-server.js';
import { idleClosedNotice } from '../../src/tools/persistent-bash/shell-idle-close.js';
import type { localEnvironment } from '../../src/plugins/local.environment.js';
import { isAlivePid, processesWith, uniqueSleep, waitUntil } from '../support/process-table.js';
import { connectClient } from '../support/mcp-clients.js';
import { rawRequest } from '../support/raw-http.js';
import { handleIn, modernHttp, modernText } from '../support/modern-client.js';
import { request } from '../support/raw-legacy.js';
import { localHttpServers } from '../support/local-http-server.js';

const servers = localHttpServers('dsh-idle-e2e-');
const serve = (options: Partial<HttpServeOptions>, env?: Parameters<typeof localEnvironment>[0]) => servers.serve(options, env ? { env } : {});

const bash = (command: string, extra: Record<string, unknown> = {}) => ({ name: 'bash', arguments: { command, description: 'Run a test command', ...extra } });
const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content.map((block) => block.text).join('');
const listBody = JSON.stringify(request(2, 'tools/list'));

/** A 1.x client that comes back to session `id` (no new initialize: the SDK reconnects when the transport has an id). */
async function reconnect(url: URL, id: string): Promise<Client> {
  const client = new Client({ name: 'dsh-idle-returning', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { sessionId: id }));
  return client;
}

test('--max-sessions 2 with clients that never DELETE: the third client gets the oldest idle session\'s place, whose shell dies', async () => {
  const { server, url } = await serve({ maxSessions: 2, idleTimeoutMs: 3_600_000, evictAfterMs: 300 }, { workspace: '', shell: 'persistent' });
  try {
    const pids: number[] = [];
    const ids: string[] = [];
    for (const name of ['first', 'second']) {
      const { client, transport } = await connectClient(url);
      pids.push(Number(textOf(await client.callTool(bash(`echo $$ # ${name}`))).trim()));
      ids.push(transport.sessionId!);
      await client.close(); // what the SDK's close() does: no DELETE
    }
    expect(pids.every(isAlivePid)).toBe(true);
    // Releasing to make room waits until a session was idle evictAfterMs: the policy under test is a time.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const third = await connectClient(url);
    expect(textOf(await third.client.callTool(bash('echo third')))).toBe('third');
    await waitUntil(() => !isAlivePid(pids[0]!), `the first session's shell ${pids[0]} is gone`);
    expect(isAlivePid(pids[1]!)).toBe(true);
    const gone = await rawRequest(url, { headers: { 'mcp-session-id': ids[0]! }, body: listBody });
    expect([gone.status, JSON.parse(gone.body).error.message]).toEqual([
      404,
      'session not found: it was idle and released to make room for a new session (--max-sessions 2), with its shell and background tasks; initialize again',
    ]);
    expect((await rawRequest(url, { headers: { 'mcp-session-id': ids[1]! }, body: listBody })).status).toBe(200);
    await third.client.close();
  } finally {
    await server.close();
  }
}, 60_000);

test('--idle-timeout 2: a session whose client only holds its event stream keeps its running task and hears its result', async () => {
  const { server, url, ends } = await serve({ idleTimeoutMs: 2000 });
  const endsSeen: unknown[] = [];
  ends.on('closed', (...args) => endsSeen.push(args));
  // About 4 s: twice the idle timeout.
  const sleep = uniqueSleep().replace(/^1000\./, '4.');
  try {
    const { client } = await connectClient(url);
    const notices = new EventEmitter();
    client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => void notices.emit('notice', String(note.params.data)));
    const finished = new Promise<string>((resolve) => notices.on('notice', (text: string) => text.includes('finished') && resolve(text)));
    const started = textOf(await client.callTool(bash(`sleep ${sleep}; echo slept`, { run_in_background: true })));
    const taskId = /\b(bash-\d+)\b/.exec(started)![1]!;
    expect(await finished).toMatch(new RegExp(`^background task ${taskId} \\(.*\\) finished \\[.*\\]\\. Read its output with task_output\\.$`));
    const output = textOf(await client.callTool({ name: 'task_output', arguments: { task_id: taskId } }));
    expect(output).toContain('slept');
    expect(endsSeen).toEqual([]);
    await client.close();
  } finally {
    await server.close();
  }
}, 60_000);

test('staged release: the idle session\'s shell goes first (its next result says so), then the session (its id\'s 404 says why)', async () => {
  const { server, url, ends } = await serve({ idleTimeoutMs: 6000 }, { workspace: '', shell: 'persistent', persistent: { idleCloseMs: 1000 } });
  try {
    const { client, transport } = await connectClient(url);
    const id = transport.sessionId!;
    const before = Number(textOf(await client.callTool(bash('cd /tmp; echo $$'))).trim());
    await client.close();
    await waitUntil(() => !isAlivePid(before), 'the idle shell is closed');
    const back = await reconnect(url, id);
    const text = textOf(await back.callTool(bash('pwd; echo $$')));
    const [cwd, pid, , notice] = text.split('\n');
    expect(cwd).toBe(servers.dir);
    expect(Number(pid)).not.toBe(before);
    expect(notice).toBe(idleClosedNotice(1000));
    const ended = once(ends, 'closed');
    await back.close();
    expect(await ended).toEqual([id, 'idle']);
    expect(isAlivePid(Number(pid))).toBe(false);
    const gone = await rawRequest(url, { headers: { 'mcp-session-id': id }, body: listBody });
    expect(JSON.parse(gone.body).error.message).toBe(
      'session not found: it was released after 6 s without a request (--idle-timeout), with its shell and background tasks; initialize again',
    );
  } finally {
    await server.close();
  }
}, 60_000);

test('a session whose client is gone ends after --idle-timeout with its running task (issue 34.4); no process is left', async () => {
  const { server, url, ends } = await serve({ idleTimeoutMs: 1000 });
  const sleep = uniqueSleep();
  try {
    const { client, transport } = await connectClient(url);
    const id = transport.sessionId!;
    await client.callTool(bash(`sleep ${sleep}`, { run_in_background: true }));
    const ended = once(ends, 'closed');
    await client.close();
    await waitUntil(() => processesWith(sleep).length > 0, 'the task runs');
    expect(await ended).toEqual([id, 'idle']);
    expect(processesWith(sleep)).toEqual([]);
  } finally {
    await server.close();
  }
}, 60_000);

describe('2026-07-28 session handles', () => {
  test('--idle-timeout 2: a client waiting on its handle\'s background task past it keeps the session, and reads the task\'s output through it', async () => {
    const { server, url } = await serve({ idleTimeoutMs: 2000 });
    const sleep = uniqueSleep().replace(/^1000\./, '4.');
    const client = await modernHttp(url, 'unused-under-no-auth');
    try {
      const started = modernText(await client.callTool(bash(`sleep ${sleep}; echo slept`, { run_in_background: true })));
      const handle = handleIn(started)!;
      const taskId = /\b(bash-\d+)\b/.exec(started)![1]!;
      // A wait is a request: the session is not abandoned while it lasts (issue 34.4).
      const output = modernText(
        await client.callTool({ name: 'task_output', arguments: { task_id: taskId, session: handle, wait: true, timeout_ms: 30_000 } }),
      );
      expect(output).toContain('slept');
    } finally {
      await client.close();
      await server.close();
    }
  }, 60_000);

  test('an idle handle\'s shell goes first: the next call through it says so and runs in a fresh shell', async () => {
    const { server, url } = await serve({ idleTimeoutMs: 60_000 }, { workspace: '', shell: 'persistent', persistent: { idleCloseMs: 1000 } });
    const client = await modernHttp(url, 'unused-under-no-auth');
    try {
      const first = modernText(await client.callTool(bash('echo $$')));
      const handle = handleIn(first)!;
      const before = Number(first.split('\n')[0]);
      await waitUntil(() => !isAlivePid(before), 'the idle shell is closed');
      const [pid, , notice] = modernText(await client.callTool(bash('echo $$', { session: handle }))).split('\n');
      expect(Number(pid)).not.toBe(before);
      expect(notice).toBe(idleClosedNotice(1000));
    } finally {
      await client.close();
      await server.close();
    }
  }, 60_000);
});
