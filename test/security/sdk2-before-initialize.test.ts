// Issue 22 item 8: on a 2025-era stdio connection nothing runs before
// `initialize`; a 2026-07-28 request describes itself and is answered.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { bashCall, INITIALIZE, request } from '../support/raw-legacy.js';
import { envelope } from '../support/raw-modern.js';
import { startRawStdio } from '../support/raw-stdio.js';
import { serverDirs } from '../support/mcp-clients.js';

let dirs: ReturnType<typeof serverDirs>;
beforeEach(() => (dirs = serverDirs()));
afterEach(() => dirs.cleanup());

const REFUSED = 'Invalid Request: the connection is not initialized: send "initialize" first';

test('tools/call and tools/list before initialize are refused with -32600 and run nothing; initialize then works', async () => {
  const server = startRawStdio(dirs.workspace, dirs.dshHome);
  try {
    const marker = path.join(dirs.workspace, 'ran-before-initialize');
    server.send(bashCall(10, `touch ${marker}`));
    server.send(request(11, 'tools/list'));
    expect(await server.answer(10)).toEqual({ jsonrpc: '2.0', id: 10, error: { code: -32600, message: REFUSED } });
    expect(await server.answer(11)).toEqual({ jsonrpc: '2.0', id: 11, error: { code: -32600, message: REFUSED } });
    server.send(request(12, 'ping'));
    expect(await server.answer(12)).toEqual({ jsonrpc: '2.0', id: 12, result: {} });
    server.send(INITIALIZE);
    expect(await server.answer(1)).toMatchObject({ result: { serverInfo: { name: 'dsh-tools' } } });
    expect(existsSync(marker)).toBe(false);
  } finally {
    server.child.stdin!.end();
    await server.exited;
  }
}, 60_000);

test('a 2026-07-28 request needs no initialize', async () => {
  const server = startRawStdio(dirs.workspace, dirs.dshHome);
  try {
    server.send(request(5, 'tools/list', { _meta: envelope({ declare: false, clientName: 'raw' }) }));
    const answer = await server.answer(5);
    expect(answer).toMatchObject({ id: 5, result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'bash' })]) } });
  } finally {
    server.child.stdin!.end();
    await server.exited;
  }
}, 60_000);
