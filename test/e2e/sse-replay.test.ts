// Issue 22 item 9: SSE events carry ids, and a client that lost its event
// stream gets what it missed by reconnecting with Last-Event-ID.
import { request, type ClientRequest } from 'node:http';
import { rawRequest } from '../support/raw-http.js';
import { httpServerForSuite } from '../support/suite-http-server.js';
import { bashCall, initialize, INITIALIZED } from '../support/raw-legacy.js';

const TOKEN = 'sse-replay-token-0123456789abcd';

const suite = httpServerForSuite({ token: TOKEN });

/** An open GET event stream: its text so far, until `close()`. */
function openStream(headers: Record<string, string>): { opened: Promise<number>; text: () => string; until: (pattern: RegExp) => Promise<RegExpExecArray>; close: () => void } {
  let text = '';
  const waiters = new Set<() => void>();
  let markOpened!: (status: number) => void;
  const opened = new Promise<number>((resolve) => (markOpened = resolve));
  const req: ClientRequest = request({ host: '127.0.0.1', port: suite.server.url.port, path: suite.server.url.pathname, method: 'GET', headers: { accept: 'text/event-stream', ...headers } }, (res) => {
    markOpened(res.statusCode ?? 0);
    res.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      for (const waiter of waiters) waiter();
    });
  });
  req.on('error', () => undefined);
  req.end();
  return {
    opened,
    text: () => text,
    until: (pattern) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} in the stream: ${text}`)), 20_000);
        const check = () => {
          const match = pattern.exec(text);
          if (!match) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(match);
        };
        waiters.add(check);
        check();
      }),
    close: () => req.destroy(),
  };
}

test('a notice sent while the event stream was gone is replayed after Last-Event-ID, and only that', async () => {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const init = await rawRequest(suite.server.url, {
    headers: auth,
    body: JSON.stringify(initialize(1, '2025-11-25')),
  });
  const headers = { ...auth, 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
  await rawRequest(suite.server.url, { headers, body: JSON.stringify(INITIALIZED) });
  const background = async (id: number, word: string): Promise<string> => {
    const reply = await rawRequest(suite.server.url, {
      headers,
      body: JSON.stringify(bashCall(id, `echo ${word}`, { run_in_background: true }, `Echo ${word}`)),
    });
    return /started background task ([A-Za-z0-9_.-]+)/.exec(reply.body)![1]!;
  };

  const first = openStream(headers);
  expect(await first.opened).toBe(200);
  const firstTask = await background(2, 'first');
  const [, firstId] = await first.until(new RegExp(`id: (\\d+)\\ndata: [^\\n]*background task ${firstTask} `));
  first.close();

  const secondTask = await background(3, 'second');
  // The notice is appended to the next result too: once a result carries it, it was also sent to the (absent) stream.
  let appended = '';
  for (let id = 10; !appended.includes(`background task ${secondTask} `) && id < 60; id++) {
    const tick = bashCall(id, 'sleep 0.1', {}, 'Wait a little');
    appended = (await rawRequest(suite.server.url, { headers, body: JSON.stringify(tick) })).body;
  }
  expect(appended).toContain(`background task ${secondTask} `);

  const resumed = openStream({ ...headers, 'last-event-id': firstId! });
  try {
    const [, replayedId] = await resumed.until(new RegExp(`id: (\\d+)\\ndata: [^\\n]*background task ${secondTask} `));
    expect(Number(replayedId)).toBeGreaterThan(Number(firstId));
    expect(resumed.text()).not.toContain(`background task ${firstTask} `);
  } finally {
    resumed.close();
  }
}, 60_000);
