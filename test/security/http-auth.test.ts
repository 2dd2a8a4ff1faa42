// The HTTP server's bearer token, in process over real HTTP with a real MCP
// client: without the right token nothing is created, whatever is sent.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { resolveHttpToken, type HttpToken } from '../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { connectClient } from '../support/mcp-clients.js';
import { initializeBody, request } from '../support/raw-legacy.js';
import { rawRequest } from '../support/raw-http.js';

let dir: string;
let host: DshHost;
let token: HttpToken;
let server: RunningHttpServer;
let url: URL;
let secret: string;
/** Host sessions opened since the last test started: the witness that a refused request created nothing. */
const opened: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-http-auth-'));
  host = await createHost(...localEnvironment({ workspace: dir }));
  token = resolveHttpToken({ env: {}, tmpDir: dir });
  secret = readFileSync(token.file!, 'utf8').trim();
  server = await serveHttp(host, { workspace: dir, port: 0, auth: token });
  url = new URL(server.url);
  const open = host.openSession.bind(host);
  host.openSession = (options) => {
    const session = open(options);
    opened.push(session.id);
    return session;
  };
});

afterAll(async () => {
  await server?.close();
  await host?.dispose();
  token?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => void opened.splice(0));

test('a real MCP client that sends the bearer token lists the tools and runs a call', async () => {
  const { client, transport } = await connectClient(url, secret);
  try {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('bash');
    const result = await client.callTool({ name: 'bash', arguments: { command: 'echo hi', description: 'Say hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(opened).toHaveLength(1);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test.each([
  ['no Authorization header', undefined],
  ['a wrong token', 'Bearer wrong-token-of-some-length'],
  ['the right token one character short', () => `Bearer ${secret.slice(0, -1)}`],
  ['the right token under another scheme', () => `Basic ${secret}`],
  ['the bare token without a scheme', () => secret],
  ['an empty bearer', 'Bearer '],
  ['two tokens', () => `Bearer ${secret} ${secret}`],
])('%s gets 401 with WWW-Authenticate and creates no session', async (_what, header) => {
  const value = typeof header === 'function' ? header() : header;
  const reply = await rawRequest(url, { headers: value === undefined ? {} : { authorization: value }, body: initializeBody() });
  expect(reply.status).toBe(401);
  // Issue 22 item 12: the challenge also names metadata that offers no authorization server.
  expect(reply.headers['www-authenticate']).toMatch(/^Bearer realm="dsh-tools", error="invalid_token", .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
  expect(JSON.parse(reply.body)).toMatchObject({ error: { message: expect.stringContaining('unauthorized') } });
  expect(reply.headers['mcp-session-id']).toBeUndefined();
  expect(opened).toEqual([]);
});

test('the MCP client without the token fails to connect, and nothing is created', async () => {
  for (const token of [undefined, 'x'.repeat(43)]) {
    await expect(connectClient(url, token)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('unauthorized') });
  }
  expect(opened).toEqual([]);
});

test('the scheme name is case-insensitive (RFC 7235); the token is not', async () => {
  const ok = await rawRequest(url, { headers: { authorization: `bearer ${secret}` }, body: initializeBody() });
  expect(ok.status).toBe(200);
  const id = ok.headers['mcp-session-id'] as string;
  const del = await rawRequest(url, { method: 'DELETE', headers: { authorization: `BEARER ${secret}`, 'mcp-session-id': id } });
  expect(del.status).toBe(200);
  const upper = await rawRequest(url, { headers: { authorization: `Bearer ${secret.toUpperCase()}` }, body: initializeBody() });
  expect(upper.status).toBe(401);
});

test('an open session cannot be used or deleted without the token (401 before the session id is looked at)', async () => {
  const { client, transport } = await connectClient(url, secret);
  try {
    const id = transport.sessionId!;
    const list = JSON.stringify(request(2, 'tools/list'));
    const attempts: Array<Record<string, string>> = [
      { 'mcp-session-id': id },
      { 'mcp-session-id': 'forged', authorization: 'Bearer nope-nope-nope-nope' },
    ];
    for (const headers of attempts) {
      expect((await rawRequest(url, { headers, body: list })).status).toBe(401);
    }
    expect((await rawRequest(url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status).toBe(401);
    // Still open: the client keeps working.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test('Host and Origin checks still refuse with 403, even with the token', async () => {
  const auth = { authorization: `Bearer ${secret}` };
  for (const host of ['evil.example', 'localhost.evil.com', '127.0.0.2:80']) {
    expect((await rawRequest(url, { headers: { ...auth, host }, body: initializeBody() })).status).toBe(403);
  }
  for (const origin of ['null', 'file://', 'http://localhost.evil.com', 'http://127.0.0.2']) {
    expect((await rawRequest(url, { headers: { ...auth, origin }, body: initializeBody() })).status).toBe(403);
  }
  expect(opened).toEqual([]);
});

test('with the token: 400 without a session id, 404 for a forged one, 413 past the 4 MiB body cap', async () => {
  const auth = { authorization: `Bearer ${secret}` };
  const list = JSON.stringify(request(2, 'tools/list'));
  expect((await rawRequest(url, { headers: auth, body: list })).status).toBe(400);
  expect((await rawRequest(url, { method: 'GET', headers: auth })).status).toBe(400);
  expect((await rawRequest(url, { headers: { ...auth, 'mcp-session-id': 'forged' }, body: list })).status).toBe(404);
  // An initialize over the cap is refused before any session exists.
  expect((await rawRequest(url, { headers: auth, body: Buffer.alloc(5 * 1024 * 1024, 0x20) })).status).toBe(400);
  expect(opened).toEqual([]);

  const { client, transport } = await connectClient(url, secret);
  try {
    const huge = JSON.stringify(request(3, 'tools/list', { pad: 'x'.repeat(4 * 1024 * 1024) }));
    const reply = await rawRequest(url, { headers: { ...auth, 'mcp-session-id': transport.sessionId! }, body: huge });
    expect(reply.status).toBe(413);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

describe('resolveHttpToken', () => {
  it('generates a random token into a 0600 file inside a private 0700 directory, removed by dispose', () => {
    const generated = resolveHttpToken({ env: {}, tmpDir: dir });
    const other = resolveHttpToken({ env: {}, tmpDir: dir });
    try {
      expect(generated.source).toBe('generated');
      expect(statSync(generated.file!).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(generated.file!)).mode & 0o777).toBe(0o700);
      expect(generated.file).not.toBe(other.file);
      const text = readFileSync(generated.file!, 'utf8').trim();
      expect(text).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(generated.matches(`Bearer ${text}`)).toBe(true);
      expect(other.matches(`Bearer ${text}`)).toBe(false);
    } finally {
      generated.dispose();
      other.dispose();
    }
    expect(existsSync(path.dirname(generated.file!))).toBe(false);
  });

  it('takes DSH_HTTP_TOKEN, or --token-file (which wins), and refuses weak or unreadable ones', () => {
    const fromEnv = resolveHttpToken({ env: { DSH_HTTP_TOKEN: 'env-token-0123456789' } });
    expect(fromEnv.source).toBe('env');
    expect(fromEnv.file).toBeUndefined();
    expect(fromEnv.matches('Bearer env-token-0123456789')).toBe(true);

    const file = path.join(dir, 'given-token');
    writeFileSync(file, 'file-token-0123456789\n', { mode: 0o600 });
    const fromFile = resolveHttpToken({ tokenFile: file, env: { DSH_HTTP_TOKEN: 'env-token-0123456789' } });
    expect(fromFile.source).toBe('file');
    expect(fromFile.matches('Bearer file-token-0123456789')).toBe(true);
    expect(fromFile.matches('Bearer env-token-0123456789')).toBe(false);
    expect(fromFile.warning).toBeUndefined();
    const open = path.join(dir, 'open-token');
    writeFileSync(open, 'file-token-0123456789\n', { mode: 0o644 });
    // 0644 is how Docker and Kubernetes mount secrets: accepted, with an info note for shared machines.
    const mounted = resolveHttpToken({ tokenFile: open });
    expect(mounted.warning).toBeUndefined();
    expect(mounted.notes).toEqual([expect.stringContaining(`--token-file ${open} is readable by every local user (mode 0644)`)]);

    expect(() => resolveHttpToken({ env: { DSH_HTTP_TOKEN: 'short' } })).toThrow(
      'the HTTP token from DSH_HTTP_TOKEN is too short (at least 16 characters)',
    );
    expect(() => resolveHttpToken({ env: { DSH_HTTP_TOKEN: 'has a space in the middle' } })).toThrow('contains whitespace');
    // A token copied from an example (the docs' Secret) opens the server to anyone who read them.
    for (const placeholder of ['replace-with-a-long-random-token', 'CHANGEME-0123456789abcdef', 'your-token-goes-here-please']) {
      expect(() => resolveHttpToken({ env: { DSH_HTTP_TOKEN: placeholder } })).toThrow(
        'the HTTP token from DSH_HTTP_TOKEN looks like a placeholder: generate one (e.g. openssl rand -hex 32)',
      );
    }
    expect(() => resolveHttpToken({ tokenFile: path.join(dir, 'missing') })).toThrow(/^cannot read --token-file .*missing \(ENOENT\)$/);
  });
});
