// Issue 18 row 14: an HTTP session is usable by any token holder who knows
// its Mcp-Session-Id, and DSH_SESSION_ID (visible to commands) was that id —
// so a command could hand its session to anything it told. Commands now see
// an id of their own. The real HTTP server (serveHttp over real HTTP, bearer
// token on), real bash in both shells, a real MCP client.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { resolveHttpToken, type HttpToken } from '../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import type { Logger } from '../../src/providers/logging/logger.js';
import { callTool, connectClient, serverDirs, startHttpServer, textOf } from '../support/mcp-clients.js';
import { rawRequest } from '../support/raw-http.js';
import { markerWorkspace, resultText } from '../support/approval-kit.js';
import { bashCall } from '../support/raw-legacy.js';

/** Every log line the server wrote, at every level. */
class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  debug(message: string): void {
    this.lines.push(message);
  }
  info(message: string): void {
    this.lines.push(message);
  }
  warn(message: string): void {
    this.lines.push(message);
  }
  error(message: string): void {
    this.lines.push(message);
  }
}

describe.each(['oneshot', 'persistent'] as const)('the %s shell over HTTP', (shell) => {
  let ws: ReturnType<typeof markerWorkspace>;
  let host: DshHost;
  let token: HttpToken;
  let secret: string;
  let server: RunningHttpServer;
  let url: URL;
  const logger = new RecordingLogger();
  const closed: Array<{ id: string; hostSessionId: string }> = [];

  beforeAll(async () => {
    ws = markerWorkspace('dsh-session-id-');
    host = await createHost(...localEnvironment({ workspace: ws.dir, shell }));
    token = resolveHttpToken({ env: {}, tmpDir: ws.dir });
    secret = readFileSync(token.file!, 'utf8').trim();
    server = await serveHttp(host, {
      workspace: ws.dir,
      port: 0,
      auth: token,
      logger,
      onSessionClosed: (id, _reason, hostSessionId) => void closed.push({ id, hostSessionId }),
    });
    url = new URL(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await host?.dispose();
    token?.dispose();
    ws.remove();
  });

  it('DSH_SESSION_ID used as Mcp-Session-Id gets 404 and runs nothing; no env variable or log line shows the transport id', async () => {
    const { client, transport } = await connectClient(url, secret);
    const transportId = transport.sessionId!;
    try {
      const call = async (command: string) =>
        resultText(await client.callTool({ name: 'bash', arguments: { command, description: 'Inspect the session' } }));
      const seen = (await call('printf %s "$DSH_SESSION_ID"')).trim();
      expect(seen).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen).not.toBe(transportId);
      // Nothing a command can list carries the transport's id (environment, shell variables). The id
      // is passed in two halves so the command's own text (BASH_EXECUTION_STRING) does not contain it.
      const [head, tail] = [transportId.slice(0, 18), transportId.slice(18)];
      expect(await call(`a='${head}'; b='${tail}'; (env; set) | grep -c -F -e "$a$b" || true`)).toMatch(/^0\s*$/);
      expect(await call(`a='${head}'; b='${tail}'; printf '%s' "$a$b"`)).toBe(transportId);

      const auth = { authorization: `Bearer ${secret}` };
      const run = JSON.stringify(bashCall(7, `touch ${ws.marker}`, {}, 'Hijack'));
      const hijack = await rawRequest(url, { headers: { ...auth, 'mcp-session-id': seen }, body: run });
      expect(hijack.status).toBe(404);
      expect((await rawRequest(url, { method: 'DELETE', headers: { ...auth, 'mcp-session-id': seen } })).status).toBe(404);
      expect(ws.ran()).toBe(false);
      // The real session is untouched.
      expect(await call('echo still mine')).toBe('still mine');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    await server.close().catch(() => undefined);
    expect(logger.lines.length).toBeGreaterThan(0);
    expect(logger.lines.filter((line) => line.includes(transportId))).toEqual([]);
    // The embedder's callback still gets both ids, and they differ.
    expect(closed).toEqual([{ id: transportId, hostSessionId: expect.not.stringMatching(transportId) }]);
  }, 60_000);
});

test('the spawned `serve --http` at logLevel debug: DSH_SESSION_ID is refused as Mcp-Session-Id and stderr never shows the transport id', async () => {
  const { root, workspace, dshHome, cleanup } = serverDirs();
  const config = path.join(root, 'debug.yaml');
  writeFileSync(config, 'logLevel: debug\n');
  const server = await startHttpServer({ workspace, dshHome, args: ['--config', config] });
  try {
    const { client, transport } = await server.connect();
    const transportId = transport.sessionId!;
    const seen = textOf(await callTool(client, 'bash', { command: 'printf %s "$DSH_SESSION_ID"', description: 'Print the session id' }));
    expect(seen).not.toBe(transportId);
    const marker = path.join(workspace, 'hijacked');
    const run = JSON.stringify(bashCall(9, `touch ${marker}`, {}, 'Hijack'));
    const reply = await rawRequest(server.url, { headers: { authorization: `Bearer ${server.token}`, 'mcp-session-id': seen }, body: run });
    expect(reply.status).toBe(404);
    expect(existsSync(marker)).toBe(false);
    await transport.terminateSession();
    await client.close();
    expect(server.stderr()).toContain(`session ${seen} opened`);
    expect(server.stderr()).not.toContain(transportId);
  } finally {
    server.process.kill('SIGTERM');
    await server.exited;
    cleanup();
  }
}, 120_000);
