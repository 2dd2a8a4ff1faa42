// Issue 33 item 4: 1,100 half-open connections against a server limited to
// 1,024 descriptors made an honest initialize hang. The built server, its
// descriptors limited to 256 (prlimit), flooded with 600 idle loopback
// connections: past --max-unauthenticated-connections the oldest are closed,
// so descriptors stay free and an honest client with the token gets in.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { callTool, serverDirs, startHttpServer, textOf, type HttpServer } from '../support/mcp-clients.js';

const TOKEN = 'flood-test-token-0123456789abcdef';
const DESCRIPTORS = 256;
const CAP = 64;
const FLOOD = 600;

let server: HttpServer;
let cleanup: () => void;

beforeAll(async () => {
  const dirs = serverDirs();
  cleanup = dirs.cleanup;
  server = await startHttpServer({
    workspace: dirs.workspace,
    dshHome: dirs.dshHome,
    args: ['--max-unauthenticated-connections', String(CAP)],
    env: { DSH_HTTP_TOKEN: TOKEN },
    token: TOKEN,
  });
  execFileSync('prlimit', ['--pid', String(server.process.pid), `--nofile=${DESCRIPTORS}:${DESCRIPTORS}`]);
}, 180_000);

afterAll(async () => {
  if (server?.process.exitCode === null) server.process.kill('SIGTERM');
  await server?.exited;
  cleanup?.();
});

test(`${FLOOD} idle connections against a ${DESCRIPTORS}-descriptor server do not keep an honest client out`, async () => {
  const flood: Socket[] = [];
  try {
    for (let n = 0; n < FLOOD; n++) {
      const socket = connect(Number(server.url.port), '127.0.0.1');
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      flood.push(socket);
    }
    const open = readdirSync(`/proc/${server.process.pid}/fd`).length;
    expect(open).toBeLessThan(DESCRIPTORS - CAP);
    const { client } = await server.connect();
    try {
      const result = await callTool(client, 'bash', { command: 'echo still-serving', description: 'Check the server answers' });
      expect(textOf(result)).toContain('still-serving');
    } finally {
      await client.close();
    }
  } finally {
    for (const socket of flood) socket.destroy();
  }
});
