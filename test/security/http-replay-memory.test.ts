// Issue 33 item 4: one caller reading a large spill resource over HTTP again
// and again must not grow the server's memory. Every SSE answer used to be
// kept in the session's replay store (bounded by count only): 16 reads of a
// 64 MiB spill left about 1.2 GB behind. Now a spill is read in pages of at
// most 1 MiB and no large answer is kept for replay, so the heap after many
// reads stays within a fraction of one file's size.
import type { ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { serveHttp, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { PAGE_META_KEY, SPILL_PAGE_BYTES } from '../../src/mcp/calls/spill-pages.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { connectClient } from '../support/mcp-clients.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const FILE_BYTES = 8 * 1024 * 1024;
const ROUNDS = 6;

let dir: string;
let host: DshHost;
let server: RunningHttpServer;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-replay-memory-'));
  host = await createHost(...localEnvironment({ workspace: dir, executor: { maxOutputBytes: 1000 } }));
  server = await serveHttp(host, { workspace: dir, port: 0, auth: 'none' });
});

afterAll(async () => {
  await server?.close();
  await host?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test(`reading an ${FILE_BYTES / 1024 / 1024} MiB spill ${ROUNDS} times over HTTP leaves the heap within half the file's size`, async () => {
  const { client } = await connectClient(new URL(server.url));
  try {
    const result = await client.callTool({
      name: 'bash',
      arguments: { command: `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${FILE_BYTES}`, description: 'Write a large output' },
    });
    const link = (result.content as Array<{ type: string }>).find((block): block is ResourceLink => block.type === 'resource_link');
    expect(link).toBeDefined();

    const readAll = async (): Promise<number> => {
      let uri: string | undefined = link!.uri;
      let bytes = 0;
      let pages = 0;
      while (uri !== undefined) {
        const read = await client.readResource({ uri });
        const content = read.contents[0] as { text: string; _meta?: Record<string, { next?: string }> };
        expect(Buffer.byteLength(content.text)).toBeLessThanOrEqual(SPILL_PAGE_BYTES);
        bytes += Buffer.byteLength(content.text);
        pages++;
        uri = content._meta?.[PAGE_META_KEY]?.next;
      }
      expect(pages).toBe(FILE_BYTES / SPILL_PAGE_BYTES);
      return bytes;
    };

    expect(await readAll()).toBe(FILE_BYTES);
    const before = heapAfterGc();
    for (let round = 0; round < ROUNDS; round++) expect(await readAll()).toBe(FILE_BYTES);
    const grown = heapAfterGc() - before;
    // Kept for replay before the fix: every page of every round, ROUNDS × FILE_BYTES.
    expect(grown).toBeLessThan(FILE_BYTES / 2);
  } finally {
    await client.close();
  }
});
