// Issue 22 leftover 2: a session handle whose call waits for an approval
// answer (between the two input_required requests: no request in flight)
// is busy: --idle-timeout, the shell's idle close and --max-sessions
// eviction leave it alone until the question is answered or withdrawn.
import { waitUntil } from '../support/process-table.js';
import { ALICE, handleOf, startAskingServer, type AskingServer } from '../support/asking-http-server.js';

let server: AskingServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** The persistent shell's pid, and the handle of the session it runs in. */
async function shellIn(server: AskingServer, session?: string): Promise<{ pid: number; handle: string | undefined }> {
  const reply = await server.bash(ALICE, 'echo $$', { tool: 'bash_persistent', ...(session ? { session } : {}) });
  return { pid: Number(reply.text!.split('\n')[0]), handle: session ?? handleOf(reply) };
}

test('--idle-timeout and the shell\'s idle close pass a handle whose question waits; answered, it runs on in the same shell', async () => {
  server = await startAskingServer({ shell: 'both', idleTimeoutMs: 600, idleCloseMs: 300 });
  const { pid, handle } = await shellIn(server);
  // Asked in the persistent shell itself: the answered call says which shell ran it, with no idle gap after the answer to race.
  const command = 'touch approved; echo $$';
  const asked = await server.bash(ALICE, command, { session: handle!, tool: 'bash_persistent' });
  expect(asked.question).toBeDefined();
  // A handle opened after it, idle meanwhile, is released: the idle timeout has passed while the question waited.
  await shellIn(server);
  await waitUntil(() => server!.logged.some((line) => / ended \(idle\)$/.test(line)), 'the other handle was released for idleness');
  const answered = await server.bash(ALICE, command, { session: handle!, tool: 'bash_persistent', answer: asked.question! });
  expect(answered.text).toBe(String(pid));
  expect(server.made('approved')).toBe(true);
}, 30_000);

test('--max-sessions eviction passes a handle whose question waits; answered (idle again), it is the one that makes room', async () => {
  server = await startAskingServer({ shell: 'both', maxSessions: 1, evictAfterMs: 100, idleTimeoutMs: 3_600_000 });
  const { pid, handle } = await shellIn(server);
  const asked = await server.bash(ALICE, 'touch approved', { session: handle! });
  expect(asked.question).toBeDefined();
  // Busy while its question waits: no room is made, however long it has been since a request of it.
  await waitUntil(() => server!.answerer.roundTrips.waiting === 1, 'the question waits');
  const refused = await server.bash(ALICE, 'echo fresh', { tool: 'bash_persistent' });
  expect(refused.text).toMatch(
    /^Error: too many sessions: this server holds at most 1 \(--max-sessions\); pass the "session" of one you hold, or wait for idle ones to expire \(the next one ends in \d+ s\)$/,
  );
  expect((await server.bash(ALICE, 'touch approved', { session: handle!, answer: asked.question! })).text).toBe('(no output)');
  expect((await shellIn(server, handle)).pid).toBe(pid);
  // Idle again: after evictAfterMs it makes room for a fresh session.
  // (polled: "idle for evictAfterMs" is a duration, not an event; each refused try creates nothing)
  let fresh = refused;
  for (let tries = 0; fresh.text!.startsWith('Error: too many') && tries < 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    fresh = await server.bash(ALICE, 'echo fresh', { tool: 'bash_persistent' });
  }
  expect(fresh.text).toMatch(/^fresh\n/);
  const gone = await server.bash(ALICE, 'echo $$', { tool: 'bash_persistent', session: handle! });
  expect(gone.text).toBe(
    `Error: session handle "${handle}" is gone: it was idle and released to make room for a new session (--max-sessions 1), with its shell and background tasks; call again without "session" to start a fresh session`,
  );
}, 30_000);
