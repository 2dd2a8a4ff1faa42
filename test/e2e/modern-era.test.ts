// Issue 22 item 1: one server speaks the 2026-07-28 era (server/discover,
// per-request envelope, no session id) beside the 2025 eras, on stdio and
// HTTP; state that spans calls lives in a session handle the model carries.
import { rawRequest } from '../support/raw-http.js';
import { startRawStdio } from '../support/raw-stdio.js';
import { serverDirs } from '../support/mcp-clients.js';
import { httpServerForSuite } from '../support/suite-http-server.js';
import { envelope as modernEnvelope } from '../support/raw-modern.js';
import { handleIn, MODERN, modernHttp, modernStdio, modernText } from '../support/modern-client.js';
import { request } from '../support/raw-legacy.js';

const TOKEN = 'modern-era-token-0123456789abc';
// The status and headers are the point here, so these requests go by rawRequest; the envelope is the era driver's.
const envelope = modernEnvelope({ declare: false, clientName: 'raw' });

describe('stdio, 2026-07-28', () => {
  let dirs: ReturnType<typeof serverDirs>;
  beforeEach(() => (dirs = serverDirs()));
  afterEach(() => dirs.cleanup());

  test('a pinned 2.x client lists the tools with a `session` argument; a persistent shell is reached again through its handle', async () => {
    const client = await modernStdio(dirs.workspace, dirs.dshHome, ['--shell', 'persistent']);
    try {
      const { tools } = await client.listTools();
      const bash = tools.find((tool) => tool.name === 'bash')!;
      expect(bash.inputSchema.properties?.session).toMatchObject({ type: 'string' });
      const first = modernText(await client.callTool({ name: 'bash', arguments: { command: 'cd /; FOO=kept; echo first', description: 'Set state' } }));
      const handle = handleIn(first);
      expect(first).toMatch(/^first\n\n\[session: dsh-s-[A-Za-z0-9_-]{43} — it keeps this call's shell and background tasks; pass "session": "dsh-s-[A-Za-z0-9_-]{43}" to later calls to use them\]$/);
      const again = modernText(await client.callTool({ name: 'bash', arguments: { command: 'pwd; echo $FOO', description: 'Read state', session: handle } }));
      expect(again).toBe('/\nkept');
      // Without the handle: a fresh session, its own shell.
      const fresh = modernText(await client.callTool({ name: 'bash', arguments: { command: 'echo "[$FOO]"', description: 'Read state' } }));
      expect(fresh.startsWith('[]')).toBe(true);
      expect(handleIn(fresh)).not.toBe(handle);
    } finally {
      await client.close();
    }
  }, 60_000);

  test('a one-shot call that leaves nothing behind names no handle', async () => {
    const client = await modernStdio(dirs.workspace, dirs.dshHome);
    try {
      const text = modernText(await client.callTool({ name: 'bash', arguments: { command: 'echo plain', description: 'Echo' } }));
      expect(text).toBe('plain');
    } finally {
      await client.close();
    }
  }, 60_000);
});

test('a server/discover probe without the envelope (a 2025 client guessing) gets -32601 on stdio, so probing clients fall back', async () => {
  const dirs = serverDirs();
  const server = startRawStdio(dirs.workspace, dirs.dshHome);
  try {
    server.send(request(1, 'server/discover', {}));
    expect(await server.answer(1)).toMatchObject({ id: 1, error: { code: -32601 } });
  } finally {
    server.child.stdin!.end();
    await server.exited;
    dirs.cleanup();
  }
}, 60_000);

describe('HTTP, 2026-07-28', () => {
  const suite = httpServerForSuite({ token: TOKEN });

  test('server/discover and a request with MCP-Protocol-Version: 2026-07-28 are answered without a session id (no 400)', async () => {
    const headers = { authorization: `Bearer ${TOKEN}`, 'mcp-protocol-version': MODERN };
    const discover = await rawRequest(suite.server.url, { headers: { ...headers, 'mcp-method': 'server/discover' }, body: JSON.stringify(request(1, 'server/discover', { _meta: envelope })) });
    expect(discover.status).toBe(200);
    expect(discover.headers['mcp-session-id']).toBeUndefined();
    expect(discover.body).toContain(MODERN);
    const list = await rawRequest(suite.server.url, { headers: { ...headers, 'mcp-method': 'tools/list' }, body: JSON.stringify(request(2, 'tools/list', { _meta: envelope })) });
    expect(list.status).toBe(200);
    expect(list.body).toContain('"bash"');
  });

  test('the same probe over HTTP gets 400 with -32000 (no session), never -32022', async () => {
    const probe = await rawRequest(suite.server.url, { headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(request(1, 'server/discover', {})) });
    expect(probe.status).toBe(400);
    expect(JSON.parse(probe.body)).toMatchObject({ id: 1, error: { code: -32000 } });
  });

  test('a pinned 2.x client runs a background task and reads it back through the handle', async () => {
    const client = await modernHttp(suite.server.url, TOKEN);
    try {
      const started = modernText(await client.callTool({ name: 'bash', arguments: { command: 'sleep 0.3; echo from-task', description: 'Background', run_in_background: true } }));
      const handle = handleIn(started);
      expect(handle).toBeDefined();
      const id = /task[_ ](?:id[: ]+)?["`]?([A-Za-z0-9_-]+)/i.exec(started)?.[1];
      expect(id).toBeDefined();
      let output = '';
      for (let i = 0; i < 50 && !output.includes('from-task'); i++) {
        output = modernText(await client.callTool({ name: 'task_output', arguments: { task_id: id, session: handle, wait: true, timeout_ms: 2000 } }));
      }
      expect(output).toContain('from-task');
      // The same task id without the handle: a fresh session does not see it.
      const elsewhere = modernText(await client.callTool({ name: 'task_output', arguments: { task_id: id } }));
      expect(elsewhere).toMatch(/^Error: /);
    } finally {
      await client.close();
    }
  }, 60_000);
});
