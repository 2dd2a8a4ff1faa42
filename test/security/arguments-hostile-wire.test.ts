// Issue 33 item 5, arguments: over the real wire (the built server on stdio,
// driven line by line, both eras; HTTP in process), `__proto__` in a tool's
// arguments used to vanish in the SDK's parsing and the call ran as if it
// was not there; an invalid 100 KB value came back whole in the error. Now
// `__proto__` is an unknown argument like any other key, an error quotes at
// most 200 characters of a value or name, and what held before stays held:
// `__proto__`/`constructor` are never honoured, an infinite timeout is
// refused and a huge one capped, a line near the 10 MiB limit is answered.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { envelope } from '../support/raw-modern.js';
import { INITIALIZE, initializeBody, INITIALIZED, resultText } from '../support/raw-legacy.js';
import { type RawStdioServer, startRawStdio } from '../support/raw-stdio.js';
import { rawRequest } from '../support/raw-http.js';

const VALID = 'valid arguments: command, description, timeoutMs, workdir, run_in_background';
const unknown = (key: string) => `Error: unknown argument "${key}" for bash; ${VALID}`;

let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-args-wire-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bash call written as raw JSON text, so keys like `__proto__` and numbers like 1e999 reach the wire as sent. */
function rawCall(id: number, argumentsJson: string, modern: boolean): string {
  const meta = modern ? `,"_meta":${JSON.stringify(envelope({ declare: false }))}` : '';
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"bash","arguments":${argumentsJson}${meta}}}\n`;
}

describe.each([
  ['2025 era', false],
  ['2026-07-28 era', true],
])('stdio, %s', (_era, modern) => {
  let server: RawStdioServer;
  beforeAll(async () => {
    server = startRawStdio(dir, mkdtempSync(path.join(dir, 'home-')));
    if (!modern) {
      server.send(INITIALIZE);
      await server.answer(1);
      server.send(INITIALIZED);
    }
  }, 180_000);
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  const ask = async (id: number, argumentsJson: string) => {
    server.child.stdin!.write(rawCall(id, argumentsJson, modern));
    return resultText(await server.answer(id, 60_000));
  };
  const marker = (name: string) => path.join(dir, `${name}-${modern ? 'modern' : 'legacy'}`);

  test('__proto__ is an unknown argument like any other key, whatever its value; the command does not run', async () => {
    for (const [n, value] of [[10, '5'], [11, '{"timeoutMs":1}'], [12, 'null']] as const) {
      const file = marker(`proto-${n}`);
      expect(await ask(n, `{"command":"touch ${file}","description":"d","__proto__":${value}}`)).toBe(unknown('__proto__'));
      expect(existsSync(file)).toBe(false);
    }
  });

  test('constructor is refused the same way; neither is ever honoured', async () => {
    const file = marker('constructor');
    expect(await ask(20, `{"command":"touch ${file}","description":"d","constructor":{"prototype":{"timeoutMs":1}}}`)).toBe(unknown('constructor'));
    expect(existsSync(file)).toBe(false);
  });

  test('a 100 KB invalid value or name is quoted only in part, with its length; short ones exactly as before', async () => {
    const big = 'x'.repeat(100_000);
    const value = await ask(30, `{"command":"true","description":"d","timeoutMs":"${big}"}`);
    expect(value).toBe(`Error: invalid timeoutMs: expected a positive number, got "${'x'.repeat(199)}… (100002 characters)`);
    const name = await ask(31, `{"command":"true","description":"d","${big}":1}`);
    expect(name).toBe(`Error: unknown argument "${'x'.repeat(199)}… (100002 characters) for bash; ${VALID}`);
    expect(await ask(32, '{"command":"true","description":"d","timeoutMs":"soon"}')).toBe('Error: invalid timeoutMs: expected a positive number, got "soon"');
  });

  test('an infinite timeout is refused; a huge one is capped and the command runs', async () => {
    expect(await ask(40, '{"command":"echo ran","description":"d","timeoutMs":1e999}')).toBe('Error: invalid timeoutMs: expected a positive number, got Infinity');
    server.child.stdin!.write(rawCall(41, '{"command":"echo ran","description":"d","timeoutMs":1e15}', modern));
    const answer = await server.answer(41, 60_000);
    expect(resultText(answer)).toBe('ran');
    expect((answer.result as { structuredContent: { timeoutMs: number } }).structuredContent.timeoutMs).toBeLessThan(1e15);
  });

  test('a line of 9 MiB (under the 10 MiB limit) is answered with a bounded error, and the server goes on', async () => {
    const text = await ask(50, `{"command":"true","description":"d","junk":"${'y'.repeat(9 * 1024 * 1024)}"}`);
    expect(text).toBe(unknown('junk'));
    expect(await ask(51, '{"command":"echo still","description":"d"}')).toBe('still');
  });
});

describe('HTTP', () => {
  let host: DshHost;
  let server: RunningHttpServer;
  beforeAll(async () => {
    host = await createHost(...localEnvironment({ workspace: dir }));
    server = await serveHttp(host, { workspace: dir, port: 0, auth: 'none' });
  });
  afterAll(async () => {
    await server?.close();
    await host?.dispose();
  });

  test('__proto__ is reported in a 2025 session and in a 2026-07-28 request alike', async () => {
    const url = new URL(server.url);
    const opened = await rawRequest(url, { body: initializeBody() });
    const session = { 'mcp-session-id': String(opened.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
    await rawRequest(url, { headers: session, body: JSON.stringify(INITIALIZED) });
    const file = path.join(dir, 'proto-http');
    const legacy = await rawRequest(url, { headers: session, body: rawCall(2, `{"command":"touch ${file}","description":"d","__proto__":{"x":1}}`, false) });
    expect(legacy.body).toContain(JSON.stringify(unknown('__proto__')));
    const modernHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'bash' };
    const modern = await rawRequest(url, { headers: modernHeaders, body: rawCall(3, `{"command":"touch ${file}","description":"d","__proto__":7}`, true) });
    expect(modern.body).toContain(JSON.stringify(unknown('__proto__')));
    expect(existsSync(file)).toBe(false);
  });
});
