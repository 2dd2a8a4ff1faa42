// Attack: keep sessions alive by leaving approval questions unanswered. A
// call waiting for its answer keeps its session busy (not idle-released, not
// evicted), so mallory tries to pin more sessions than the caps allow, and
// to pin them forever. Each waiting question holds one session slot of the
// same --max-sessions / --max-sessions-per-caller count, and only until
// approval.timeoutMs withdraws it; then the session idles like any other.
import { waitUntil } from '../support/process-table.js';
import { ALICE, MALLORY, handleOf, startAskingServer, type AskingServer, type Reply } from '../support/asking-http-server.js';

let server: AskingServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

// Ends with when the next session ends by itself (its lifetime, or abandonment).
const TOO_MANY = /^Error: too many sessions: this server holds at most 2 \(--max-sessions\); pass the "session" of one you hold, or wait for idle ones to expire \(the next one ends in \d+ s\)$/;

/** Retries a fresh call until it is not refused for the cap ("idle for evictAfterMs" is a duration, not an event). */
async function freshCallOnceRoomIsMade(server: AskingServer, token: string): Promise<Reply> {
  let reply = await server.bash(token, 'echo $$', { tool: 'bash_persistent' });
  for (let tries = 0; reply.text!.startsWith('Error: too many') && tries < 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    reply = await server.bash(token, 'echo $$', { tool: 'bash_persistent' });
  }
  return reply;
}

test('unanswered questions pin at most the cap, and only until approval.timeoutMs; then their sessions make room', async () => {
  server = await startAskingServer({ shell: 'both', maxSessions: 2, evictAfterMs: 100, idleTimeoutMs: 3_600_000, approvalTimeoutMs: 1500 });
  const handles = [handleOf(await server.bash(MALLORY, 'echo $$', { tool: 'bash_persistent' })), handleOf(await server.bash(MALLORY, 'echo $$', { tool: 'bash_persistent' }))];
  for (const session of handles) expect((await server.bash(MALLORY, 'touch pinned', { session })).question).toBeDefined();
  // A third question needs a third session: refused at the cap like any fresh call, nothing asked.
  expect((await server.bash(MALLORY, 'touch third')).text).toMatch(TOO_MANY);
  expect(server.answerer.roundTrips.waiting).toBe(2);
  // Alice cannot get in while they wait (busy sessions are never evicted) ...
  expect((await server.bash(ALICE, 'echo $$', { tool: 'bash_persistent' })).text).toMatch(TOO_MANY);
  // ... but the wait is bounded: approval.timeoutMs withdraws both questions, and an idle session makes room.
  await waitUntil(() => server!.answerer.roundTrips.waiting === 0, 'approval.timeoutMs withdraws the questions', 10_000);
  expect((await freshCallOnceRoomIsMade(server, ALICE)).text).toMatch(/^\d+\n/);
  expect(server.made('pinned')).toBe(false);
}, 60_000);

test('with --max-sessions-per-caller, mallory\'s unanswered questions cannot take the places of other callers', async () => {
  server = await startAskingServer({ shell: 'both', maxSessions: 3, maxSessionsPerCaller: 1, evictAfterMs: 100, idleTimeoutMs: 3_600_000 });
  expect((await server.bash(MALLORY, 'touch first')).question).toBeDefined();
  expect((await server.bash(MALLORY, 'touch second')).text).toBe(
    'Error: too many sessions for caller "mallory": at most 1 each (--max-sessions-per-caller); pass the "session" of one you hold, or wait for idle ones to expire',
  );
  expect(server.answerer.roundTrips.waiting).toBe(1);
  expect((await server.bash(ALICE, 'echo $$', { tool: 'bash_persistent' })).text).toMatch(/^\d+\n/);
}, 30_000);
