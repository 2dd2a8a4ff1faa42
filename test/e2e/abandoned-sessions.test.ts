// Issue 34.4 with real clients over HTTP: a session whose client is gone
// ends after --idle-timeout even with a task running (a task nobody reads or
// waits on is not activity), every session ends at --session-lifetime busy
// or not, both with their tasks and counted in dsh_sessions_released_total;
// a refusal at the cap says when the next session ends by itself.
import { once } from 'node:events';
import type { DshHost } from '../../src/container/dsh-host.js';
import type { HttpServeOptions } from '../../src/mcp/http-server.js';
import { HostMetrics } from '../../src/providers/observability/host-metrics.js';
import { AuditSink, type AuditEvent } from '../../src/providers/observability/audit-sink.js';
import { PluginModule } from '../../src/core/plugin-module.js';
import { processesWith, uniqueSleep, waitUntil } from '../support/process-table.js';
import { connectClient } from '../support/mcp-clients.js';
import { rawRequest } from '../support/raw-http.js';
import { handleIn, modernHttp, modernText } from '../support/modern-client.js';
import { initialize, request } from '../support/raw-legacy.js';
import { localHttpServers } from '../support/local-http-server.js';

const servers = localHttpServers('dsh-abandoned-e2e-');

async function serve(options: Partial<HttpServeOptions>) {
  // The audit trail as a sink sees it: the sessions the server ended arrive as events.
  const events: AuditEvent[] = [];
  const sink: AuditSink = { name: 'memory', write: async () => undefined, writeEvent: async (event) => void events.push(event) };
  const audit = new PluginModule('test-audit', ({ bind }) => void bind(AuditSink).toConstantValue(sink));
  return { ...(await servers.serve(options, { modules: [audit] })), events };
}

const bash = (command: string, extra: Record<string, unknown> = {}) => ({ name: 'bash', arguments: { command, description: 'Run a test command', ...extra } });
const listBody = JSON.stringify(request(2, 'tools/list'));
const released = async (host: DshHost, reason: string) =>
  new RegExp(`^dsh_sessions_released_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec((await host.get(HostMetrics).exposition()).text)?.[1];

test('2026 handle: a client gone with a task running loses the handle after --idle-timeout, with its task; the handle then says why', async () => {
  const { host, server, url, events } = await serve({ idleTimeoutMs: 1500 });
  const sleep = uniqueSleep();
  const client = await modernHttp(url, 'unused-under-no-auth');
  try {
    const started = modernText(await client.callTool(bash(`sleep ${sleep}`, { run_in_background: true })));
    const handle = handleIn(started)!;
    await waitUntil(() => processesWith(sleep).length > 0, 'the task runs');
    // The client says nothing more: the task alone does not keep the session.
    await waitUntil(() => processesWith(sleep).length === 0, 'the abandoned session ends with its task');
    const again = modernText(await client.callTool(bash('echo back', { session: handle })));
    expect(again).toBe(
      `Error: session handle "${handle}" is gone: it was released after 1.5 s without a request (--idle-timeout), with its shell and background tasks; call again without "session" to start a fresh session`,
    );
    expect(await released(host, 'idle')).toBe('1');
    expect(events).toEqual([
      { event: 'session_ended', time: expect.any(String), reason: 'idle', clientSession: handle, session: expect.any(String), caller: 'default', withRunningTasks: true },
    ]);
  } finally {
    await client.close();
    await server.close();
  }
}, 60_000);

test('--session-lifetime: a session whose client holds its event stream open still ends at its lifetime, with its task; its id\'s 404 says why', async () => {
  const { host, server, url, ends, events } = await serve({ idleTimeoutMs: 3_600_000, sessionLifetimeMs: 2000 });
  const sleep = uniqueSleep();
  const { client, transport } = await connectClient(url);
  try {
    const id = transport.sessionId!;
    const ended = once(ends, 'closed');
    await client.callTool(bash(`sleep ${sleep}`, { run_in_background: true }));
    await waitUntil(() => processesWith(sleep).length > 0, 'the task runs');
    expect(await ended).toEqual([id, 'lifetime']);
    expect(processesWith(sleep)).toEqual([]);
    const gone = await rawRequest(url, { headers: { 'mcp-session-id': id }, body: listBody });
    expect([gone.status, JSON.parse(gone.body).error.message]).toEqual([
      404,
      'session not found: it reached its lifetime of 2 s (--session-lifetime), with its shell and background tasks; initialize again',
    ]);
    expect(await released(host, 'lifetime')).toBe('1');
    expect(events.filter((e) => e.event === 'session_ended')).toEqual([
      { event: 'session_ended', time: expect.any(String), reason: 'lifetime', clientSession: id, session: expect.any(String), caller: 'default', withRunningTasks: true },
    ]);
    expect(events.find((e) => e.event === 'session_ended')).not.toMatchObject({ session: id });
    // The 404 of the released id is audited as a refusal.
    expect(events.filter((e) => e.event === 'http_refused').map((e) => e.event === 'http_refused' && e.status)).toEqual([404]);
  } finally {
    await client.close().catch(() => undefined);
    await server.close();
  }
}, 60_000);

test('at --max-sessions with no idle session to release, the refusal says when the next one ends by itself (both eras)', async () => {
  const { server, url } = await serve({ maxSessions: 1, idleTimeoutMs: 600_000, evictAfterMs: 3_600_000 });
  const sleep = uniqueSleep();
  const client = await modernHttp(url, 'unused-under-no-auth');
  try {
    const held = modernText(await client.callTool(bash(`sleep ${sleep}`, { run_in_background: true })));
    expect(handleIn(held)).toBeDefined();
    const refused = modernText(await client.callTool(bash('echo fresh')));
    const seconds = Number(/ \(the next one ends in (\d+) s\)$/.exec(refused)?.[1]);
    expect(refused.startsWith('Error: too many sessions: this server holds at most 1 (--max-sessions); pass the "session" of one you hold, or wait for idle ones to expire (')).toBe(true);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(600);
    const legacy = await rawRequest(url, {
      body: JSON.stringify(initialize(1, '2025-06-18', 'x')),
    });
    expect(legacy.status).toBe(503);
    expect(JSON.parse(legacy.body).error.message).toMatch(
      /^too many sessions: this server holds at most 1 \(--max-sessions\); close one or wait for idle ones to expire \(the next one ends in \d+ s\)$/,
    );
  } finally {
    await client.close();
    await server.close();
  }
}, 60_000);
