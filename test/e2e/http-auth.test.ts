// The built server's HTTP authentication and session flags, as a user starts
// them: a generated token in a private file, DSH_HTTP_TOKEN, --no-auth, and a
// second local user who can neither read the token nor get in.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MAIN_JS } from '../support/built-server.js';
import {
  callTool,
  processesWith,
  serverDirs,
  startHttpServer,
  textOf,
  uniqueMarker,
  waitUntil,
  type HttpServer,
} from '../support/mcp-clients.js';
import { request } from '../support/raw-legacy.js';

const dirs: Array<() => void> = [];
const servers: HttpServer[] = [];

async function start(options: { args?: string[]; env?: Record<string, string>; token?: string } = {}): Promise<HttpServer> {
  const { workspace, dshHome, cleanup } = serverDirs();
  dirs.push(cleanup);
  const server = await startHttpServer({ workspace, dshHome, ...options });
  servers.push(server);
  return server;
}

async function stop(server: HttpServer): Promise<number | null> {
  if (server.process.exitCode === null) server.process.kill('SIGTERM');
  return server.exited;
}

afterAll(async () => {
  await Promise.all(servers.map(stop));
  for (const cleanup of dirs) cleanup();
});

const bashArgs = (command: string) => ({ command, description: 'Run a test command' });

/** Runs a Node script as uid/gid 65534 (nobody) with no supplementary groups; returns its stdout lines. */
function asNobody(script: string, args: string[]): string[] {
  const out = execFileSync('setpriv', ['--reuid', '65534', '--regid', '65534', '--clear-groups', process.execPath, '-e', script, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  return out.trim().split('\n');
}

const NOBODY_ATTEMPT = `
const fs = require('node:fs');
const [file, url] = process.argv.slice(1);
let token = '';
try { token = fs.readFileSync(file, 'utf8').trim(); console.log('read'); } catch (e) { console.log(e.code); }
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'nobody', version: '1' } } });
fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
  ...(token ? { authorization: 'Bearer ' + token } : {}) } })
  .then((res) => console.log(res.status), (e) => console.log('fetch failed: ' + e.message));
`;

const canSwitchUser = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;

describe('a generated token', () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await start();
  }, 180_000);

  it('is written to a 0600 file in a private 0700 directory whose path is on stderr; the MCP client with it works', async () => {
    expect(server.tokenFile).toBeDefined();
    expect(statSync(server.tokenFile!).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(server.tokenFile!)).mode & 0o777).toBe(0o700);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { client } = await server.connect();
    try {
      expect(textOf(await callTool(client, 'bash', bashArgs('echo authorized')))).toBe('authorized');
      // Commands never see the token.
      expect(textOf(await callTool(client, 'bash', bashArgs('env | grep -c DSH_HTTP_TOKEN || true')))).toBe('0');
    } finally {
      await client.close();
    }
  });

  it('without it the MCP client gets 401', async () => {
    await expect(server.connect(null)).rejects.toMatchObject({ code: 401 });
    await expect(server.connect('guessed-token-guessed-token')).rejects.toMatchObject({ code: 401 });
  });

  (canSwitchUser ? it : it.skip)('a second local user (uid 65534) cannot read the token file and gets 401 (needs root for setpriv)', () => {
    const [readAttempt, status] = asNobody(NOBODY_ATTEMPT, [server.tokenFile!, server.url.href]);
    expect(readAttempt).toBe('EACCES');
    expect(status).toBe('401');
  });

  it('is removed with its directory when the server stops', async () => {
    expect(await stop(server)).toBe(0);
    expect(existsSync(path.dirname(server.tokenFile!))).toBe(false);
  });
});

test('DSH_HTTP_TOKEN is the token when set: no file is generated', async () => {
  const token = 'e2e-env-token-0123456789abcdef';
  const server = await start({ env: { DSH_HTTP_TOKEN: token }, token });
  expect(server.tokenFile).toBeUndefined();
  expect(server.stderr()).not.toContain(token);
  const { client } = await server.connect();
  try {
    expect(textOf(await callTool(client, 'bash', bashArgs('echo env token')))).toBe('env token');
  } finally {
    await client.close();
  }
  await expect(server.connect(null)).rejects.toMatchObject({ code: 401 });
}, 60_000);

(canSwitchUser ? test : test.skip)('--no-auth logs a warning and lets anyone in, even uid 65534 (needs root for setpriv)', async () => {
  const server = await start({ args: ['--no-auth'] });
  expect(server.stderr()).toMatch(/authentication is off \(--no-auth\)/);
  expect(server.tokenFile).toBeUndefined();
  const [, status] = asNobody(NOBODY_ATTEMPT, ['/nonexistent', server.url.href]);
  expect(status).toBe('200');
}, 60_000);

test('--max-sessions 1: a second client is refused with the JSON-RPC error', async () => {
  const server = await start({ args: ['--max-sessions', '1', '--idle-timeout', '600'] });
  const first = await server.connect();
  try {
    await expect(server.connect()).rejects.toThrow(/too many sessions: this server holds at most 1 \(--max-sessions\)/);
  } finally {
    await first.transport.terminateSession();
    await first.client.close();
  }
}, 60_000);

test('--idle-timeout 2: a client gone without DELETE loses its session with its running task (issue 34.4); the id then gets 404', async () => {
  const { root, cleanup } = serverDirs();
  dirs.push(cleanup);
  const config = path.join(root, 'info.yaml');
  writeFileSync(config, 'logLevel: info\n');
  const server = await start({ args: ['--idle-timeout', '2', '--config', config] });
  const { client, transport } = await server.connect();
  // Far longer than the idle timeout: nobody reads or waits on it, so it ends with the session.
  const marker = `1000.${uniqueMarker()}`;
  const id = transport.sessionId!;
  await callTool(client, 'bash', { ...bashArgs(`sleep ${marker}`), run_in_background: true });
  await waitUntil(() => processesWith(marker).length > 0, `sleep ${marker} runs`);
  await client.close();
  // The log names the host session, never the Mcp-Session-Id (a credential).
  await waitUntil(() => / session \S+ ended \(idle\)/.test(server.stderr()), 'the server reports the idle expiry');
  expect(server.stderr()).not.toContain(id);
  // The log line is written when the server decides to end the session; its task is killed as the session closes, just after.
  await waitUntil(() => processesWith(marker).length === 0, `the session's task (sleep ${marker}) is killed with it`);
  const list = JSON.stringify(request(2, 'tools/list'));
  const reply = await fetch(server.url, {
    method: 'POST',
    body: list,
    headers: { authorization: `Bearer ${server.token}`, 'mcp-session-id': id, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  });
  expect(reply.status).toBe(404);
}, 60_000);

test.each([
  [['serve', '--token-file', '/x'], '--token-file applies to --http only'],
  [['serve', '--no-auth', '--host', '0.0.0.0'], '--no-auth and --host apply to --http only'],
  [['serve', '--http', '0', '--no-auth', '--host', '0.0.0.0'], 'refusing to listen on 0.0.0.0 without a token'],
  [['serve', '--http', '0', '--host', 'not a host'], "option '--host <addr>' argument 'not a host' is invalid"],
  [['serve', '--drain-timeout', '-1'], "option '--drain-timeout <seconds>' argument '-1' is invalid"],
  [['serve', '--max-sessions-per-caller', '2'], '--max-sessions-per-caller applies to --http only'],
  [['serve', '--max-concurrent-calls', '0'], "option '--max-concurrent-calls <n>' argument '0' is invalid"],
  [['serve', '--http', '0', '--allowed-host', 'a.example:443'], "option '--allowed-host <name>' argument 'a.example:443' is invalid"],
  [['serve', '--http', '0', '--no-auth', '--token-file', '/x'], '--no-auth and --token-file contradict each other'],
  [['serve', '--http', '0', '--token-file', '/nonexistent/token'], 'cannot read --token-file /nonexistent/token (ENOENT)'],
  [['serve', '--http', '0', '--idle-timeout', 'soon'], "option '--idle-timeout <seconds>' argument 'soon' is invalid"],
  [['serve', '--http', '0', '--max-sessions', '0'], "option '--max-sessions <n>' argument '0' is invalid"],
])('bad HTTP flags fail at start: %j', (args, message) => {
  const result = spawnSync(process.execPath, [MAIN_JS, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  expect(result.stderr).toContain(message);
  expect(result.status).not.toBe(0);
});
