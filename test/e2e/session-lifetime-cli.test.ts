// Issue 34.4 through the CLI: serve.sessionLifetimeMs in the config file and
// --session-lifetime over it end an HTTP session at its lifetime; its id's
// 404 says so; a bad value is refused at start.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt } from '../support/built-server.js';
import { serverDirs, startHttpServer, waitUntil } from '../support/mcp-clients.js';
import { validateConfig } from '../../src/plugins/config/config-file.js';
import { request } from '../support/raw-legacy.js';

const cleanups: Array<() => void> = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

async function lifetimeOf(args: string[], config: string): Promise<string> {
  const made = serverDirs();
  cleanups.push(made.cleanup);
  const file = path.join(made.root, 'dsh.yaml');
  writeFileSync(file, config);
  const server = await startHttpServer({ workspace: made.workspace, dshHome: made.dshHome, args: ['--config', file, ...args] });
  try {
    const { transport } = await server.connect();
    const id = transport.sessionId!;
    await waitUntil(() => server.stderr().includes('ended (lifetime)'), 'the session reaches its lifetime', 30_000);
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'mcp-session-id': id, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify(request(9, 'tools/list')),
    });
    expect(res.status).toBe(404);
    const answer = ((await res.json()) as { error: { message: string } }).error.message;
    await transport.close().catch(() => undefined);
    return answer;
  } finally {
    server.process.kill('SIGTERM');
    await server.exited;
  }
}

test('serve.sessionLifetimeMs from the config file ends the session', async () => {
  expect(await lifetimeOf([], 'logLevel: info\nserve:\n  sessionLifetimeMs: 1500\n')).toBe(
    'session not found: it reached its lifetime of 1.5 s (--session-lifetime), with its shell and background tasks; initialize again',
  );
}, 60_000);

test('--session-lifetime overrides the config file', async () => {
  expect(await lifetimeOf(['--session-lifetime', '1'], 'logLevel: info\nserve:\n  sessionLifetimeMs: 3600000\n')).toBe(
    'session not found: it reached its lifetime of 1 s (--session-lifetime), with its shell and background tasks; initialize again',
  );
}, 60_000);

test('a bad serve.sessionLifetimeMs is refused with its key', () => {
  expect(() => validateConfig({ serve: { sessionLifetimeMs: -5 } }, 'dsh.yaml')).toThrow('dsh.yaml: serve.sessionLifetimeMs: expected 0 or a positive integer');
  expect(() => validateConfig({ serve: { lifetime: 5 } }, 'dsh.yaml')).toThrow('dsh.yaml: serve.lifetime: unknown key (known: sessionLifetimeMs, console, operatorTokenFile, sharedSessions)');
});
