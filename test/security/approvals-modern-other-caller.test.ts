// Attack: caller B (a valid token of its own) learns caller A's requestState
// and answers A's question. The question belongs to A's token: B is refused
// with the text any unknown state gets, A's command does not run on B's
// word, and A can still answer its own question.
import { STALE_APPROVAL_ANSWER } from '../../src/mcp/approvals/approval-round-trips.js';
import { ACCEPT, ALICE, BOB, questionOf, startAskingServer, type AskingServer } from '../support/asking-http-server.js';

let server: AskingServer;
beforeAll(async () => (server = await startAskingServer()));
afterAll(() => server.stop());

test("another caller's accept of the same call is refused; the owner's answer still decides", async () => {
  const asked = await server.call(ALICE, 'touch alices-file');
  const { key } = questionOf(asked);

  const stolen = await server.call(BOB, 'touch alices-file', { requestState: asked.requestState, inputResponses: { [key]: ACCEPT } });
  expect(stolen).toMatchObject({ text: `Error: ${STALE_APPROVAL_ANSWER}`, isError: true });
  expect(server.made('alices-file')).toBe(false);

  const declined = await server.call(ALICE, 'touch alices-file', { requestState: asked.requestState, inputResponses: { [key]: { action: 'decline' } } });
  expect(declined).toMatchObject({ text: 'Error: command rejected by the user', isError: true });
  expect(server.made('alices-file')).toBe(false);
});

test('a guessed state (right shape, never issued) is refused like any other', async () => {
  const asked = await server.call(BOB, 'touch guessed');
  const { key } = questionOf(asked);
  const guessed = await server.call(BOB, 'touch guessed', { requestState: 'A'.repeat(asked.requestState!.length), inputResponses: { [key]: ACCEPT } });
  expect(guessed.text).toBe(`Error: ${STALE_APPROVAL_ANSWER}`);
  expect(server.made('guessed')).toBe(false);
});
