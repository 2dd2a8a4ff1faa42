// Shared sessions, 2026-07-28 approvals: two HTTP replicas over one
// workspace share a session registry (the real record directory a local
// Docker engine's replicas use) and the same named tokens.
// A question asked on one is answered on the other (which runs the call again
// with the answer), also after the one that asked is gone; the command runs
// once; a state that was used, changed, forged, expired or sent by another
// caller or for another call is refused exactly as today.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STALE_APPROVAL_ANSWER } from '../../../src/mcp/approvals/approval-round-trips.js';
import { ACCEPT, ALICE, BOB, handleOf, questionOf, startAskingServer, type AskingServer, type CallReply } from '../../support/asking-http-server.js';
import { waitUntil } from '../../support/process-table.js';
import { FileSessionRegistry } from '../../../src/providers/registry/file-session-registry.js';

const STALE = { text: `Error: ${STALE_APPROVAL_ANSWER}`, isError: true };
/** What the counted command's call answers when it ran. */
const RAN = { resultType: 'complete', text: '(no output)' };
let registry: FileSessionRegistry;
let workspace: string;
let a: AskingServer;
let b: AskingServer;
let counter = 0;

beforeAll(async () => {
  workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-shared-approvals-')));
  registry = new FileSessionRegistry(path.join(workspace, '.records'));
  a = await startAskingServer({ workspace, registry });
  b = await startAskingServer({ workspace, registry });
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  rmSync(workspace, { recursive: true, force: true });
});

/** A command that asks (`touch`) and counts its runs in its own log; `runs()` reads the count. */
function counted(): { command: string; runs: () => number } {
  const log = `runs-${++counter}`;
  const runs = () => {
    try {
      return readFileSync(path.join(workspace, log), 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };
  return { command: `touch made-${counter} && echo ran >> ${log}`, runs };
}

const accepting = (asked: CallReply) => ({ requestState: asked.requestState, inputResponses: { [questionOf(asked).key]: ACCEPT } });

test('a question asked on A is answered on B: the command runs once, on B, and a replay anywhere runs nothing', async () => {
  const { command, runs } = counted();
  const asked = await a.call(ALICE, command);
  expect(asked.resultType).toBe('input_required');
  expect(a.answerer.roundTrips.waiting).toBe(1);

  const onB = await b.call(ALICE, command, accepting(asked));
  expect(onB).toEqual(RAN);
  expect(runs()).toBe(1);
  expect(b.logged).toContain('mcp: an approval asked on another replica was answered here: the call runs again from its start');

  // The same answer again, on B, then on A (which still holds the waiting call): refused, and A's wait ends.
  expect(await b.call(ALICE, command, accepting(asked))).toMatchObject(STALE);
  expect(await a.call(ALICE, command, accepting(asked))).toMatchObject(STALE);
  await waitUntil(() => a.answerer.roundTrips.waiting === 0, "A's waiting call is released");
  expect(runs()).toBe(1);
});

test('answered on A itself, the call goes on there as today; the used state is refused on B', async () => {
  const { command, runs } = counted();
  const asked = await a.call(ALICE, command);
  expect(await a.call(ALICE, command, accepting(asked))).toEqual(RAN);
  expect(runs()).toBe(1);
  expect(await b.call(ALICE, command, accepting(asked))).toMatchObject(STALE);
  expect(await a.call(ALICE, command, accepting(asked))).toMatchObject(STALE);
  expect(runs()).toBe(1);
});

test('a state for other arguments, of another caller, or changed in any part is refused on B and consumes nothing', async () => {
  const { command, runs } = counted();
  const asked = await a.call(ALICE, command);
  const retry = accepting(asked);
  expect(await b.call(ALICE, `${command} && touch more`, retry)).toMatchObject(STALE);
  expect(await b.call(BOB, command, retry)).toMatchObject(STALE);

  const [version, payload, mac] = asked.requestState!.split('.');
  const facts = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  const resealed = (change: Record<string, unknown>) => `${version}.${Buffer.from(JSON.stringify({ ...facts, ...change })).toString('base64url')}.${mac}`;
  const forged = [
    resealed({ caller: 'bob' }),
    resealed({ expiresAt: Date.now() + 3_600_000 }),
    resealed({ answered: [{ question: facts.question, decision: 'allowed-once' }] }),
    `${version}.${payload}.${Buffer.alloc(32).toString('base64url')}`,
    `${version}.${payload}`,
    'not-a-state',
  ];
  for (const requestState of forged) expect(await b.call(ALICE, command, { ...retry, requestState })).toMatchObject(STALE);
  expect(await b.call(BOB, command, { ...retry, requestState: resealed({ caller: 'bob' }) })).toMatchObject(STALE);
  expect(runs()).toBe(0);

  // The caller the question belongs to still answers it, on either replica.
  expect(await b.call(ALICE, command, retry)).toEqual(RAN);
  expect(runs()).toBe(1);
});

test('a declined answer on B refuses the command there, as it would on A', async () => {
  const { command, runs } = counted();
  const asked = await a.call(ALICE, command);
  const declined = await b.call(ALICE, command, { requestState: asked.requestState, inputResponses: { [questionOf(asked).key]: { action: 'decline' } } });
  expect(declined).toMatchObject({ text: 'Error: command rejected by the user', isError: true });
  expect(runs()).toBe(0);
});

describe('a replica that asked and is gone', () => {
  test('its question is answered on a replica started after it, and on B; the command runs once', async () => {
    const { command, runs } = counted();
    const gone = await startAskingServer({ workspace, registry });
    const asked = await gone.call(ALICE, command);
    expect(asked.resultType).toBe('input_required');
    // Gone with everything it held in memory (its waiting call is withdrawn as at a SIGKILL: nothing runs).
    await gone.stop();
    const restarted = await startAskingServer({ workspace, registry });
    try {
      expect(await restarted.call(ALICE, command, accepting(asked))).toEqual(RAN);
      expect(runs()).toBe(1);
      expect(await b.call(ALICE, command, accepting(asked))).toMatchObject(STALE);
      expect(runs()).toBe(1);
    } finally {
      await restarted.stop();
    }
  });
});

describe('an expired question', () => {
  test('is refused on the other replica once the approval limit passed', async () => {
    const { command, runs } = counted();
    const quick = await startAskingServer({ workspace, registry, approvalTimeoutMs: 300 });
    try {
      const asked = await quick.call(ALICE, command);
      await waitUntil(() => quick.answerer.roundTrips.waiting === 0, 'the approval limit withdraws the question');
      const expiresAt = (JSON.parse(Buffer.from(asked.requestState!.split('.')[1]!, 'base64url').toString('utf8')) as { expiresAt: number }).expiresAt;
      await waitUntil(() => Date.now() > expiresAt, 'the state expires');
      expect(await b.call(ALICE, command, accepting(asked))).toMatchObject(STALE);
      expect(runs()).toBe(0);
    } finally {
      await quick.stop();
    }
  });
});

describe('a call in a session handle', () => {
  let a2: AskingServer;
  let b2: AskingServer;
  beforeAll(async () => {
    // A persistent shell is the state that gets a call a handle.
    a2 = await startAskingServer({ workspace, registry, shell: 'both' });
    b2 = await startAskingServer({ workspace, registry, shell: 'both' });
  });
  afterAll(async () => {
    await a2?.stop();
    await b2?.stop();
  });

  test("asked on A, answered on B: it runs once, in the handle's session, which B adopts", async () => {
    const handle = handleOf(await a2.bash(ALICE, 'true', { tool: 'bash_persistent' }));
    const sessionId = (await a2.bash(ALICE, 'echo "$DSH_SESSION_ID"', { session: handle })).text;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const command = 'touch in-handle && echo "$DSH_SESSION_ID" >> handle-runs';
    const asked = await a2.bash(ALICE, command, { session: handle });
    expect(asked.question).toBeDefined();
    // Another handle (or none) is another call: the state does not fit it.
    expect((await b2.bash(ALICE, command, { answer: asked.question! })).text).toBe(`Error: ${STALE_APPROVAL_ANSWER}`);
    const done = await b2.bash(ALICE, command, { session: handle, answer: asked.question! });
    expect(done.text).toBe('(no output)');
    expect(readFileSync(path.join(workspace, 'handle-runs'), 'utf8')).toBe(`${sessionId}\n`);
  });
});

describe('without tokens (--no-auth), or without a registry', () => {
  test("a question stays the asking replica's: a random state, refused on the other", async () => {
    const { command, runs } = counted();
    const pairs = [
      [{ auth: 'none' as const, registry }, { auth: 'none' as const, registry }],
      [{}, {}],
    ];
    for (const [first, second] of pairs) {
      const one = await startAskingServer({ workspace, ...first });
      const two = await startAskingServer({ workspace, ...second });
      try {
        const asked = await one.call(ALICE, command);
        expect(asked.requestState).toMatch(/^[A-Za-z0-9_-]{24}$/);
        expect(await two.call(ALICE, command, accepting(asked))).toMatchObject(STALE);
        expect(runs()).toBe(0);
      } finally {
        await one.stop();
        await two.stop();
      }
    }
  });
});
