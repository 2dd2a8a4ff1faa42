// The call gate per caller: a caller's own cap (--max-concurrent-calls-per-caller) keeps its long calls from taking
// every place, freed places go to the callers' lines in turn, and every refusal after the queue timeout is reported.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CallGate, type GateCap } from '../../src/mcp/calls/call-gate.js';
import { resolveHttpToken } from '../../src/mcp/access/http-auth.js';
import type { RunningHttpServer } from '../../src/mcp/http-server.js';
import { localHttpServerForSuite } from '../support/local-http-server.js';
import { waitUntil } from '../support/process-table.js';
import { connectClient } from '../support/mcp-clients.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bobby-token-0123456789abcdef';
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('two named-token callers over HTTP, --max-concurrent-calls 2 --max-concurrent-calls-per-caller 1', () => {
  const refusals: Array<[GateCap, string | undefined]> = [];
  const suite = localHttpServerForSuite('dsh-gate-fair-', (made) => {
    const tokens = path.join(made, 'tokens');
    writeFileSync(tokens, `alice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 });
    const gate = new CallGate({ maxConcurrent: 2, maxConcurrentPerCaller: 1, queueTimeoutMs: 1500, onRefused: (cap, caller) => refusals.push([cap, caller]) });
    return { auth: resolveHttpToken({ tokenFile: tokens }), callGate: gate };
  });
  let dir: string;
  let server: RunningHttpServer;
  beforeAll(() => void ({ dir, server } = suite));

  it("alice's two long calls do not make bob's echo wait; alice's second waits in her own line and is refused naming her cap", async () => {
    const alice = await connectClient(new URL(server.url), ALICE);
    const bob = await connectClient(new URL(server.url), BOB);
    const call = (client: typeof alice.client, command: string) =>
      client.callTool({ name: 'bash', arguments: { command, description: 'Run a test command' } }) as Promise<CallToolResult>;
    try {
      const go = path.join(dir, 'go');
      const long = `touch started; while [ ! -e ${go} ]; do sleep 0.05; done; echo long`;
      const first = call(alice.client, long);
      await waitUntil(() => existsSync(path.join(dir, 'started')), "alice's first call runs");
      const second = call(alice.client, 'echo second');
      expect(textOf(await call(bob.client, 'echo bob'))).toBe('bob');
      const refused = await second;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe(
        'Error: too many commands running for caller "alice": at most 1 at once each (--max-concurrent-calls-per-caller) and none finished within 1.5 s; try again later',
      );
      expect(refusals).toEqual([['caller', 'alice']]);
      writeFileSync(go, '');
      expect(textOf(await first)).toBe('long');
    } finally {
      for (const { client, transport } of [alice, bob]) {
        await transport.terminateSession();
        await client.close();
      }
    }
  });
});

describe('CallGate turn order', () => {
  const never = () => new AbortController().signal;

  it('a freed place goes to the next caller in turn, not to the caller who already has calls waiting ahead', async () => {
    const gate = new CallGate({ maxConcurrent: 1, queueTimeoutMs: 60_000 });
    const order: string[] = [];
    const held = (await gate.acquire(never(), 'a')) as () => void;
    // Each call runs as soon as it is granted and gives its place back.
    const run = (caller: string, name: string) =>
      gate.acquire(never(), caller).then((release) => {
        order.push(name);
        (release as () => void)();
      });
    const waits = [run('a', 'a2'), run('a', 'a3'), run('b', 'b1')];
    held();
    await Promise.all(waits);
    expect(order).toEqual(['a2', 'b1', 'a3']);
    expect(gate.active).toBe(0);
  });

  it('a refusal at the server cap is reported as such, with the old message; an aborted wait is not reported', async () => {
    const refused: GateCap[] = [];
    const gate = new CallGate({ maxConcurrent: 1, queueTimeoutMs: 50, onRefused: (cap) => refused.push(cap) });
    const held = (await gate.acquire(never(), 'a')) as () => void;
    expect(await gate.acquire(never(), 'b')).toEqual({
      refused: 'too many commands running: this server runs at most 1 at once (--max-concurrent-calls) and none finished within 0.05 s; try again later',
    });
    const cancel = new AbortController();
    const waiting = gate.acquire(cancel.signal, 'b');
    cancel.abort();
    expect(await waiting).toEqual({ refused: 'tool call aborted' });
    expect(refused).toEqual(['server']);
    held();
    expect(gate.active).toBe(0);
  });
});
