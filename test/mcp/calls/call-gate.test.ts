// --max-concurrent-calls: over the cap a call waits in line, runs when a place
// frees, and fails with a clear result when none frees in time. Real server,
// real SDK client, real bash.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CallGate } from '../../../src/mcp/calls/call-gate.js';
import { resolveHttpToken } from '../../../src/mcp/access/http-auth.js';
import type { RunningHttpServer } from '../../../src/mcp/http-server.js';
import { localHttpServerForSuite } from '../../support/local-http-server.js';
import { waitUntil } from '../../support/process-table.js';
import { connectClient } from '../../support/mcp-clients.js';

const TOKEN = 'gate-test-token-0123456789abcdef';
let gate: CallGate;
const suite = localHttpServerForSuite('dsh-gate-', () => {
  gate = new CallGate({ maxConcurrent: 1, queueTimeoutMs: 1500 });
  return { auth: resolveHttpToken({ env: { DSH_HTTP_TOKEN: TOKEN } }), callGate: gate };
});
let dir: string;
let server: RunningHttpServer;
beforeAll(() => void ({ dir, server } = suite));

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const call = (client: Awaited<ReturnType<typeof connectClient>>['client'], command: string) =>
  client.callTool({ name: 'bash', arguments: { command, description: 'Run a test command' } }) as Promise<CallToolResult>;

test('with 1 place, across two sessions: the second call fails after the queue timeout, the third waits and runs', async () => {
  const one = await connectClient(new URL(server.url), TOKEN);
  const two = await connectClient(new URL(server.url), TOKEN);
  try {
    const go = path.join(dir, 'go');
    const first = call(one.client, `touch started; while [ ! -e ${go} ]; do sleep 0.05; done; echo first`);
    await waitUntil(() => existsSync(path.join(dir, 'started')), 'the first call runs');
    expect(gate.active).toBe(1);
    const refused = await call(two.client, 'echo second');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'Error: too many commands running: this server runs at most 1 at once (--max-concurrent-calls) and none finished within 1.5 s; try again later',
    );
    const third = call(two.client, 'echo third');
    writeFileSync(go, '');
    expect(textOf(await first)).toBe('first');
    expect(textOf(await third)).toBe('third');
    expect(gate.active).toBe(0);
  } finally {
    for (const { client, transport } of [one, two]) {
      await transport.terminateSession();
      await client.close();
    }
  }
});

test('a call cancelled while it waits leaves the line without taking a place', async () => {
  const inner = new CallGate({ maxConcurrent: 1, queueTimeoutMs: 60_000 });
  const release = await inner.acquire(new AbortController().signal);
  const cancel = new AbortController();
  const waiting = inner.acquire(cancel.signal);
  cancel.abort();
  expect(await waiting).toEqual({ refused: 'tool call aborted' });
  if (typeof release === 'function') release();
  expect(inner.active).toBe(0);
});
