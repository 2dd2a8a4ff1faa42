// Attack: the client got a question for one command and sends the approval
// with a different command (same requestState, same caller). The answer is
// bound to the call it was asked for: refused, nothing runs, and the
// question is not spent, so the real call can still be answered.
import { STALE_APPROVAL_ANSWER } from '../../src/mcp/approvals/approval-round-trips.js';
import { ACCEPT, ALICE, questionOf, startAskingServer, type AskingServer } from '../support/asking-http-server.js';

let server: AskingServer;
beforeAll(async () => (server = await startAskingServer()));
afterAll(() => server.stop());

test('an accept sent with another command is refused and runs neither command', async () => {
  const asked = await server.call(ALICE, 'touch asked-for');
  expect(asked.resultType).toBe('input_required');
  const { key, message } = questionOf(asked);
  expect(message).toContain('Command (1 line): "touch asked-for"');

  const swapped = await server.call(ALICE, 'touch swapped-in', { requestState: asked.requestState, inputResponses: { [key]: ACCEPT } });
  expect(swapped).toMatchObject({ text: `Error: ${STALE_APPROVAL_ANSWER}`, isError: true });
  expect(server.made('swapped-in')).toBe(false);
  expect(server.made('asked-for')).toBe(false);

  // The question still waits for the call it belongs to.
  const real = await server.call(ALICE, 'touch asked-for', { requestState: asked.requestState, inputResponses: { [key]: ACCEPT } });
  expect(real).toMatchObject({ resultType: 'complete', text: '(no output)' });
  expect(server.made('asked-for')).toBe(true);
  expect(server.made('swapped-in')).toBe(false);
});

test('a command that differs only in whitespace is another call: refused', async () => {
  const asked = await server.call(ALICE, 'touch in-place');
  const { key } = questionOf(asked);
  const changed = await server.call(ALICE, 'touch  in-place', { requestState: asked.requestState, inputResponses: { [key]: ACCEPT } });
  expect(changed.text).toBe(`Error: ${STALE_APPROVAL_ANSWER}`);
  expect(server.made('in-place')).toBe(false);
});
