// Issue 31: what it costs a replica to serve the first request of a session
// another replica opened (`--shared-sessions`): find the record, replay the
// client's initialize, find the session's container and run the call —
// against the same call on the replica that made the session, warm,
// interleaved in the same run. Two HTTP servers over two container hosts in
// this process share one record directory, as two replicas on one host do.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, DockerContainerEngine } from '../dist/index.js';
import { serveHttp, type RunningHttpServer } from '../dist/mcp/http-server.js';
import { SessionRegistry } from '../dist/providers/registry/session-registry.js';
import { SessionContainersToken } from '../dist/providers/exec/engine/session-containers.js';
import { fmt, median, timeOnce, type Figure } from './stats.js';

const IMAGE = 'dsh-tools-test:latest';
const ACCEPT = 'application/json, text/event-stream';

/** One JSON-RPC request to the MCP endpoint; resolves with the session header it got back (or was given). */
async function post(url: string, body: object, session?: string): Promise<string | undefined> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-06-18' };
  if (session !== undefined) headers['mcp-session-id'] = session;
  const answer = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await answer.text();
  if (!answer.ok || text.includes('"isError":true')) throw new Error(`HTTP ${answer.status}: ${text.slice(0, 200)}`);
  return answer.headers.get('mcp-session-id') ?? session;
}

const call = (url: string, session: string, id: number) =>
  post(url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'bash', arguments: { command: 'true', description: 'Do nothing' } } }, session);

async function openSession(url: string): Promise<string> {
  const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };
  const session = await post(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: init });
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  return session!;
}

export async function benchSharedSessions(runs: number): Promise<Figure[]> {
  try {
    await new DockerContainerEngine().info();
  } catch (error) {
    return [{ name: 'shared sessions', value: `skipped: no container engine (${(error as Error).message})` }];
  }
  // The record directory and the sessions' directories of this run only.
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-shared-'));
  const previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  const hosts = [await makeHost(), await makeHost()];
  const servers: RunningHttpServer[] = [];
  try {
    for (const host of hosts) {
      const registry = host.get(SessionRegistry);
      const containers = host.get(SessionContainersToken);
      servers.push(await serveHttp(host, { workspace: process.cwd(), port: 0, auth: 'none', registry, endShared: (id) => containers.end(id) }));
    }
    const [a, b] = servers.map((server) => server.url) as [string, string];
    const first: number[] = [];
    const warm: number[] = [];
    const second: number[] = [];
    for (let i = 0; i < runs; i++) {
      const session = await openSession(a);
      // Past the container's start and its channel's: the opening replica as it runs most of a session.
      for (let id = 10; id < 15; id++) await call(a, session, id);
      warm.push(await timeOnce(() => call(a, session, 3)));
      first.push(await timeOnce(() => call(b, session, 4)));
      second.push(await timeOnce(() => call(b, session, 5)));
      await fetch(a, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    }
    const baseline = median(warm);
    return [
      {
        name: 'shared session: first request on a replica that did not open it (`true`)',
        value: fmt(median(first)),
        baseline: `same call, warm, on the opening replica ${fmt(baseline)}`,
        ratio: median(first) / baseline,
      },
      {
        name: 'shared session: its next request there',
        value: fmt(median(second)),
        baseline: `opening replica ${fmt(baseline)}`,
        ratio: median(second) / baseline,
      },
    ];
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    await Promise.all(hosts.map((host) => host.dispose()));
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
    rmSync(tmp, { recursive: true, force: true });
  }
}

function makeHost() {
  return createHost(...containerEnvironment({ workspace: process.cwd(), container: { image: IMAGE }, sharedSessions: true }));
}
