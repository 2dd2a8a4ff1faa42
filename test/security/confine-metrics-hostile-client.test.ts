// `serve --metrics-port`: the loopback listener against clients that do not
// behave (a rebinding page's Host, other methods, other paths, huge and slow
// requests, many scrapers at once). It must answer only `GET /metrics` from a
// loopback Host, never hang or hold a socket for a client that stalls, and
// keep serving the scraper.
import net from 'node:net';
import { createHost, localEnvironment, type DshHost } from '../../src/index.js';
import { startMetricsListener, type MetricsListener } from '../../src/mcp/endpoints/metrics-endpoint.js';
import { tempDir } from '../support/observability-kit.js';

interface RawReply {
  readonly status: number;
  readonly head: string;
  readonly body: string;
  /** The server closed the connection after its reply. */
  readonly closed: boolean;
}

let host: DshHost;
let listener: MetricsListener;
let tmp: ReturnType<typeof tempDir>;
let port: number;

beforeAll(async () => {
  tmp = tempDir('confine-metrics-');
  host = await createHost(...localEnvironment({ workspace: tmp.dir }));
  listener = await startMetricsListener(host, 0);
  port = Number(new URL(listener.url).port);
});
afterAll(async () => {
  await listener.close();
  await host.dispose();
  tmp.remove();
});

/** Sends `request` as it is and reads until the server closes or `waitMs` passes after the first reply bytes. */
function raw(request: string | Buffer, waitMs = 300): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    let settle: NodeJS.Timeout | undefined;
    const done = (closed: boolean): void => {
      clearTimeout(settle);
      socket.destroy();
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body, closed });
    };
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      clearTimeout(settle);
      settle = setTimeout(() => done(false), waitMs);
    });
    socket.on('close', () => done(true));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? done(true) : reject(error)));
    socket.write(request);
  });
}

const request = (line: string, headers: string[] = ['Host: 127.0.0.1']): string => `${line}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;

it('serves a well-behaved scrape', async () => {
  const reply = await raw(request('GET /metrics HTTP/1.1'));
  expect(reply.status).toBe(200);
  expect(reply.body).toContain('# TYPE dsh_tool_calls_total counter');
});

it.each([
  ['a foreign name', 'Host: attacker.example'],
  ['a loopback name as a subdomain', 'Host: 127.0.0.1.attacker.example'],
  ['userinfo before a foreign host', 'Host: 127.0.0.1@attacker.example'],
  ['an empty Host', 'Host: '],
])('refuses %s as Host with 403, whatever the path', async (_name, hostHeader) => {
  for (const path of ['/metrics', '/other']) {
    const reply = await raw(request(`GET ${path} HTTP/1.1`, [hostHeader]));
    expect([path, reply.status]).toEqual([path, 403]);
    expect(reply.body).not.toContain('dsh_');
  }
});

it('refuses a request without any Host (HTTP/1.0) with 403', async () => {
  const reply = await raw('GET /metrics HTTP/1.0\r\n\r\n');
  expect(reply.status).toBe(403);
});

it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'])('answers %s with 405 and closes the connection', async (method) => {
  const reply = await raw(request(`${method} /metrics HTTP/1.1`, ['Host: 127.0.0.1', 'Content-Length: 5']) + 'hello');
  expect(reply.status).toBe(405);
  expect(reply.head).toMatch(/\r\nallow: GET, HEAD/i);
  expect(reply.closed).toBe(true);
});

it('does not read an endless body: the connection closes after the answer', async () => {
  const socket = net.connect(port, '127.0.0.1');
  const closed = new Promise<string>((resolve) => {
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('close', () => resolve(data));
    socket.on('error', () => undefined);
  });
  socket.write(request('POST /metrics HTTP/1.1', ['Host: 127.0.0.1', 'Transfer-Encoding: chunked']));
  const pump = setInterval(() => socket.writable && socket.write(`10000\r\n${'x'.repeat(0x10000)}\r\n`), 5);
  try {
    expect(await closed).toMatch(/^HTTP\/1\.1 405/);
  } finally {
    clearInterval(pump);
    socket.destroy();
  }
});

it.each([
  ['/metrics/', 404],
  ['/metrics.txt', 404],
  ['//attacker.example/metrics', 404],
  ['/%6detrics', 404],
  ['/other', 404],
  ['/metrics?name[]=dsh_tool_calls_total', 200],
])('answers GET %s with %i', async (path, status) => {
  const reply = await raw(request(`GET ${path} HTTP/1.1`));
  expect(reply.status).toBe(status);
  if (status !== 200) expect(reply.body).not.toContain('dsh_');
});

it('refuses huge request headers and keeps serving', async () => {
  const reply = await raw(request(`GET /metrics?${'a'.repeat(100_000)} HTTP/1.1`));
  expect(reply.status).toBe(431);
  expect((await raw(request('GET /metrics HTTP/1.1'))).status).toBe(200);
});

it('drops a client that never finishes its headers, and slow clients do not hold up a scrape', async () => {
  const slow = Array.from({ length: 20 }, () => net.connect(port, '127.0.0.1'));
  const started = Date.now();
  const ends = slow.map(
    (socket) =>
      new Promise<{ after: number; got: string }>((resolve) => {
        let got = '';
        socket.on('error', () => undefined);
        // Read what comes: whichever timer drops the client first, ours closes it silently and node's own check
        // answers 408 first. Unread, that answer would keep the socket from ever seeing its end (a CI run hung so).
        socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
        socket.on('close', () => resolve({ after: Date.now() - started, got }));
        socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      }),
  );
  try {
    expect((await raw(request('GET /metrics HTTP/1.1'))).status).toBe(200);
    const closed = await Promise.all(ends);
    // The listener's header timeout (5 s) plus its check interval (1 s), not node's 60 s default.
    expect(Math.max(...closed.map((end) => end.after))).toBeLessThan(8_000);
    // Dropped without a word, or with node's 408: never the metrics.
    for (const { got } of closed) expect(got === '' || got.startsWith('HTTP/1.1 408 ')).toBe(true);
  } finally {
    for (const socket of slow) socket.destroy();
  }
}, 20_000);

it('answers 40 concurrent scrapers with the same complete exposition', async () => {
  const replies = await Promise.all(Array.from({ length: 40 }, () => raw(request('GET /metrics HTTP/1.1'))));
  const names = (body: string): string[] => body.split('\n').filter((line) => line.startsWith('# TYPE '));
  expect(replies.map((reply) => reply.status)).toEqual(Array(40).fill(200));
  const first = names(replies[0]!.body);
  expect(first.length).toBeGreaterThan(0);
  for (const reply of replies) expect(names(reply.body)).toEqual(first);
});
