// Shared sessions, 2026-07-28 era: a session handle made on server A is
// recorded in the registry A and B share (in memory here), so B serves a
// call with it in the same host session; another caller's handle, or one
// whose session ended elsewhere, reads as unknown, as it does today.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveHttpToken } from '../../../src/mcp/access/http-auth.js';
import { unknownHandleMessage } from '../../../src/mcp/sessions/session-handles.js';
import { sessionKey } from '../../../src/providers/registry/session-registry.js';
import { localHttpServers, type TestServer } from '../../support/local-http-server.js';
import { handleIn } from '../../support/modern-client.js';
import { bashParams, callText, httpDriver, resultOf } from '../../support/raw-modern.js';
import { holdFindsUntilAsked, MemorySessionRegistry } from '../support/memory-session-registry.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef00';
const servers = localHttpServers('dsh-shared-handles-');
const registry = new MemorySessionRegistry();
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  const file = path.join(servers.dir, 'tokens');
  writeFileSync(file, `alice:${ALICE}\nbob:${BOB}\n`, { mode: 0o600 });
  const auth = resolveHttpToken({ tokenFile: file, env: {} });
  // A persistent shell is the state that gets a call a handle.
  a = await servers.serve({ auth, registry }, { env: { shell: 'persistent' } });
  b = await servers.serve({ auth, registry }, { env: { shell: 'persistent' } });
});

afterAll(async () => {
  await a?.server.close();
  await b?.server.close();
});

/** The text of a bash call on `server` as `token`'s caller, with `handle` when given. */
async function bash(server: TestServer, token: string, command: string, handle?: string): Promise<string> {
  const answer = await httpDriver(server.url, token).request('tools/call', bashParams(command, handle === undefined ? {} : { session: handle }), { declare: false });
  return callText(resultOf(answer));
}

/** A fresh session on A with a handle: the handle and the DSH_SESSION_ID its commands see. */
async function handleOnA(): Promise<{ handle: string; sessionId: string }> {
  const text = await bash(a, ALICE, 'echo "id=$DSH_SESSION_ID"');
  const handle = handleIn(text);
  if (handle === undefined) throw new Error(`no handle in ${text}`);
  return { handle, sessionId: /id=(\S+)/.exec(text)![1]! };
}

test('a handle made on A is recorded, and B runs a call with it in the same host session', async () => {
  const { handle, sessionId } = await handleOnA();
  expect(registry.records.get(sessionKey(handle))).toMatchObject({ era: 'modern', caller: 'alice', sessionId });
  const onB = await bash(b, ALICE, 'echo "id=$DSH_SESSION_ID"', handle);
  // Served in the handle's session: no fresh session, no new handle.
  expect(onB).toBe(`id=${sessionId}`);
  expect(await bash(b, ALICE, 'echo "again=$DSH_SESSION_ID"', handle)).toBe(`again=${sessionId}`);
  expect(await bash(a, ALICE, 'echo "back=$DSH_SESSION_ID"', handle)).toBe(`back=${sessionId}`);
});

test("another caller's handle reads as unknown on B, like a handle nobody made", async () => {
  const { handle } = await handleOnA();
  expect(await bash(b, BOB, 'echo stolen', handle)).toBe(`Error: ${unknownHandleMessage(handle)}`);
  const madeUp = `dsh-s-${'A'.repeat(43)}`;
  expect(await bash(b, BOB, 'echo guessed', madeUp)).toBe(`Error: ${unknownHandleMessage(madeUp)}`);
  // Once B serves it for its caller, the other caller still reads it as unknown.
  expect(await bash(b, ALICE, 'echo mine', handle)).toBe('mine');
  expect(await bash(b, BOB, 'echo stolen', handle)).toBe(`Error: ${unknownHandleMessage(handle)}`);
});

test('concurrent first calls with a handle on B adopt its session once', async () => {
  const { handle, sessionId } = await handleOnA();
  const done = holdFindsUntilAsked(registry, 3);
  try {
    const texts = await Promise.all([1, 2, 3].map((n) => bash(b, ALICE, `echo "${n}=$DSH_SESSION_ID"`, handle)));
    expect(texts.sort()).toEqual([1, 2, 3].map((n) => `${n}=${sessionId}`));
    expect(registry.finds.get(sessionKey(handle))).toBe(1);
  } finally {
    done();
  }
});

test('a handle whose session ended elsewhere (its record gone) reads as unknown on the replicas that served it', async () => {
  const { handle } = await handleOnA();
  expect(await bash(b, ALICE, 'echo served', handle)).toBe('served');
  expect(await registry.remove(sessionKey(handle))).toBe(true);
  expect(await bash(a, ALICE, 'echo after', handle)).toBe(`Error: ${unknownHandleMessage(handle)}`);
  expect(await bash(b, ALICE, 'echo after', handle)).toBe(`Error: ${unknownHandleMessage(handle)}`);
  // Let go of locally: a later call is not adopted again either.
  expect(await bash(a, ALICE, 'echo later', handle)).toBe(`Error: ${unknownHandleMessage(handle)}`);
});
