// Issue 33 item 5: a client that sent a second request under the id of one
// still in flight never got an answer to the first (the SDK keys answers and
// HTTP streams by id). Now the duplicate is refused at once with -32600 and
// the first gets its answer, on stdio (both eras, the built server driven
// line by line) and on HTTP (2025 sessions; 2026-07-28 requests stand alone,
// so both are answered).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { envelope } from '../support/raw-modern.js';
import { INITIALIZE, initializeBody, INITIALIZED, request, resultText } from '../support/raw-legacy.js';
import { type RawStdioServer, startRawStdio } from '../support/raw-stdio.js';
import { rawRequest } from '../support/raw-http.js';

const DUPLICATE = /^Invalid Request: id 5 is already used by a request still in flight; send each request with an id of its own$/;

let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-id-reuse-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A command that answers only once `gate` exists: the test decides when the first request ends. */
function gated(gate: string, word: string): string {
  return `while [ ! -e ${gate} ]; do sleep 0.05; done; echo ${word}`;
}

function call(id: number, command: string, modern = false): object {
  const params = { name: 'bash', arguments: { command, description: 'Run a test command' }, ...(modern ? { _meta: envelope({ declare: false }) } : {}) };
  return request(id, 'tools/call', params);
}

async function answersTo(server: RawStdioServer, id: number, count: number): Promise<Array<Record<string, unknown>>> {
  const found = () => server.messages.filter((message) => message.id === id);
  while (found().length < count) await server.messagesAfter(server.messages.length, 1, 60_000);
  return found();
}

describe.each([
  ['2025 era', false],
  ['2026-07-28 era', true],
])('stdio, %s', (_era, modern) => {
  test('a second request under an id in flight is refused at once; the first still gets its answer; the id is free after', async () => {
    const home = mkdtempSync(path.join(dir, 'home-'));
    const gate = path.join(dir, `gate-${modern ? 'modern' : 'legacy'}`);
    const server = startRawStdio(dir, home);
    try {
      if (!modern) {
        server.send(INITIALIZE);
        await server.answer(1);
        server.send(INITIALIZED);
      }
      server.send(call(5, gated(gate, 'first'), modern));
      server.send(call(5, 'echo second', modern));
      const [refusal] = await answersTo(server, 5, 1);
      expect(refusal).toMatchObject({ id: 5, error: { code: -32600 } });
      expect((refusal!.error as { message: string }).message).toMatch(DUPLICATE);
      expect(existsSync(gate)).toBe(false);
      writeFileSync(gate, '');
      const [, first] = await answersTo(server, 5, 2);
      expect(resultText(first!)).toContain('first');
      server.send(call(5, 'echo third', modern));
      const [, , third] = await answersTo(server, 5, 3);
      expect(resultText(third!)).toContain('third');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

describe('HTTP', () => {
  let host: DshHost;
  let server: RunningHttpServer;
  let url: URL;
  beforeAll(async () => {
    host = await createHost(...localEnvironment({ workspace: dir }));
    server = await serveHttp(host, { workspace: dir, port: 0, auth: 'none' });
    url = new URL(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await host?.dispose();
  });

  const dataOf = (body: string) => body.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);

  test('2025 session: the duplicate gets 400 -32600 at once; the first request answers on its own stream; the id is free after', async () => {
    const gate = path.join(dir, 'gate-http');
    const opened = await rawRequest(url, { body: initializeBody() });
    const session = { 'mcp-session-id': String(opened.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
    await rawRequest(url, { headers: session, body: JSON.stringify(INITIALIZED) });
    const first = rawRequest(url, { headers: session, body: JSON.stringify(call(5, gated(gate, 'first'))) });
    // The first is in flight once its command runs; the gate file's absence keeps it there.
    const probe = await rawRequest(url, { headers: session, body: JSON.stringify(call(6, `pgrep -f '${gate}' >/dev/null && echo running`)) });
    expect(JSON.stringify(dataOf(probe.body))).toContain('running');
    const second = await rawRequest(url, { headers: session, body: JSON.stringify(call(5, 'echo second')) });
    expect(second.status).toBe(400);
    expect(JSON.parse(second.body)).toMatchObject({ id: 5, error: { code: -32600 } });
    expect((JSON.parse(second.body) as { error: { message: string } }).error.message).toMatch(DUPLICATE);
    writeFileSync(gate, '');
    const answered = dataOf((await first).body).find((message) => message.id === 5);
    expect(resultText(answered!)).toContain('first');
    const third = await rawRequest(url, { headers: session, body: JSON.stringify(call(5, 'echo third')) });
    expect(resultText(dataOf(third.body).find((message) => message.id === 5)!)).toContain('third');
  });

  test('2026-07-28: requests stand alone, so two under one id at once are both answered', async () => {
    const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'bash' };
    const send = (word: string) => rawRequest(url, { headers, body: JSON.stringify(call(5, `echo ${word}`, true)) });
    const [a, b] = await Promise.all([send('alpha'), send('beta')]);
    const texts = [a, b].map((reply) => JSON.stringify(reply.body));
    expect(texts[0]).toContain('alpha');
    expect(texts[1]).toContain('beta');
  });
});
