// Issue 33 item 4: the MCP listener had no header, body or idle deadline and
// no cap on connections: trickled headers held a socket about 91 s, a body
// trickled after a 401 held it over 100 s, and 1,100 half-open connections
// made an honest initialize hang. In process over real loopback sockets,
// with short deadlines and a small cap so each attack ends quickly.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { resolveHttpToken, type HttpToken } from '../../src/mcp/access/http-auth.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { connectClient } from '../support/mcp-clients.js';

const SECRET = 'slow-clients-token-0123456789';
const LIMITS = { headersTimeoutMs: 800, bodyTimeoutMs: 800, idleTimeoutMs: 800, maxUnauthenticated: 16 };
/** Far more steps than any deadline allows: the attack must be cut long before it ends by itself. */
const TRICKLE_STEPS = 200;
const STEP_MS = 100;

let dir: string;
let host: DshHost;
let token: HttpToken;
let server: RunningHttpServer;
let url: URL;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-http-slow-'));
  host = await createHost(...localEnvironment({ workspace: dir }));
  token = resolveHttpToken({ env: { DSH_HTTP_TOKEN: SECRET } });
  server = await serveHttp(host, { workspace: dir, port: 0, auth: token, connectionLimits: LIMITS });
  url = new URL(server.url);
});

afterAll(async () => {
  await server?.close();
  await host?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function open(): Promise<Socket> {
  const socket = connect(Number(url.port), '127.0.0.1');
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return socket;
}

/** Writes `chunks` one per step until the server closes the socket; how many were written by then. */
async function trickle(socket: Socket, chunks: string[]): Promise<number> {
  // Not events.once: it rejects on 'error', and a cut-off connection may end with a reset rather than a FIN.
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
  for (let sent = 0; sent < chunks.length; sent++) {
    if (socket.destroyed || socket.writableEnded) return sent;
    socket.write(chunks[sent]!);
    const step = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STEP_MS));
    if (await Promise.race([closed, step])) return sent + 1;
  }
  return chunks.length;
}

const head = (lines: string[]) => `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n`;

test('a request head trickled a byte at a time is cut off at the header deadline', async () => {
  const socket = await open();
  const bytes = head([`X-Pad: ${'a'.repeat(TRICKLE_STEPS)}`]).split('');
  expect(await trickle(socket, bytes)).toBeLessThan(TRICKLE_STEPS / 2);
});

test('a body trickled after the 401 is not waited for: the connection ends', async () => {
  const socket = await open();
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  socket.write(head(['Content-Type: application/json', `Content-Length: ${TRICKLE_STEPS}`]));
  const sent = await trickle(socket, Array.from({ length: TRICKLE_STEPS }, () => ' '));
  expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  expect(sent).toBeLessThan(TRICKLE_STEPS / 2);
});

test('an authenticated body trickled past the body deadline is cut off too', async () => {
  const socket = await open();
  socket.write(head(['Content-Type: application/json', `Authorization: Bearer ${SECRET}`, `Content-Length: ${TRICKLE_STEPS}`]));
  expect(await trickle(socket, Array.from({ length: TRICKLE_STEPS }, () => ' '))).toBeLessThan(TRICKLE_STEPS / 2);
});

test('a kept-alive connection left idle after its answer is closed; a call running longer than every deadline still gets its answer', async () => {
  const socket = await open();
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await once(socket, 'close');
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);

  const { client } = await connectClient(url, SECRET);
  try {
    // About 2.5 deadlines of silence on the response stream.
    const result = await client.callTool({ name: 'bash', arguments: { command: 'sleep 2; echo done', description: 'Wait past the deadlines' } });
    expect(JSON.stringify(result.content)).toContain('done');
  } finally {
    await client.close();
  }
});

test('a flood of idle connections past the cap pushes out its own oldest; an honest initialize still gets in', async () => {
  const flood: Socket[] = [];
  let closedByServer = 0;
  for (let n = 0; n < 200; n++) {
    const socket = await open();
    socket.once('close', () => closedByServer++);
    // Read (and drop) whatever comes: a 408 from node's own header check, left unread, would keep 'close' from firing.
    socket.resume();
    flood.push(socket);
  }
  try {
    const { client } = await connectClient(url, SECRET);
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('bash');
    await client.close();
    // Every flood socket past the cap was closed by the server; wait for their close events.
    while (closedByServer < 200 - LIMITS.maxUnauthenticated) await Promise.race(flood.filter((s) => !s.destroyed).map((s) => once(s, 'close')));
    expect(flood.filter((socket) => !socket.destroyed).length).toBeLessThanOrEqual(LIMITS.maxUnauthenticated);
  } finally {
    for (const socket of flood) socket.destroy();
  }
});
