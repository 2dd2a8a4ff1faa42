// Attack: answers that are not a plain answer to the question. Only an
// `accept` whose content (if any) repeats the shown fields exactly runs the
// command; a missing, edited, extended, wrapped or unknown answer fails
// closed, and a state of the wrong type is refused. Each case is a fresh
// question, and none of them makes its file.
import { STALE_APPROVAL_ANSWER } from '../../src/mcp/approvals/approval-round-trips.js';
import { ALICE, questionOf, startAskingServer, type AskingServer } from '../support/asking-http-server.js';

let server: AskingServer;
beforeAll(async () => (server = await startAskingServer()));
afterAll(() => server.stop());

const FAILED = 'Error: command not approved: the approver failed';

async function answerWith(file: string, answer: (key: string) => Record<string, unknown> | undefined): Promise<string | undefined> {
  const asked = await server.call(ALICE, `touch ${file}`);
  const { key } = questionOf(asked);
  const responses = answer(key);
  const reply = await server.call(ALICE, `touch ${file}`, { requestState: asked.requestState, ...(responses ? { inputResponses: responses } : {}) });
  expect(server.made(file)).toBe(false);
  return reply.text ?? reply.error?.message;
}

test.each([
  ['no inputResponses at all', 'no-responses', () => undefined],
  ['an empty inputResponses', 'empty', () => ({})],
  ['an unknown action', 'unknown-action', (key: string) => ({ [key]: { action: 'approve' } })],
  ['an accept with an edited command field', 'edited', (key: string) => ({ [key]: { action: 'accept', content: { command: '"touch elsewhere"' } } })],
  ['an accept with an extra field', 'extra', (key: string) => ({ [key]: { action: 'accept', content: { approved: true } } })],
  ['an accept wrapped as {method, result}', 'wrapped', (key: string) => ({ [key]: { method: 'elicitation/create', result: { action: 'accept' } } })],
  ['a sampling result instead of an elicitation result', 'sampling', (key: string) => ({ [key]: { role: 'assistant', content: { type: 'text', text: 'yes' }, model: 'm' } })],
])('%s: fails closed', async (_title, file, answer) => {
  expect(await answerWith(file, answer)).toBe(FAILED);
});

test('an accept that repeats the shown fields exactly runs the command (the control case)', async () => {
  const asked = await server.call(ALICE, 'touch shown-fields');
  const { key } = questionOf(asked);
  const properties = asked.inputRequests![key]!.params.requestedSchema.properties;
  const content = Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, field.default]));
  const reply = await server.call(ALICE, 'touch shown-fields', { requestState: asked.requestState, inputResponses: { [key]: { action: 'accept', content } } });
  expect(reply.isError).toBeFalsy();
  expect(server.made('shown-fields')).toBe(true);
});

test('cancel: "command approval cancelled"', async () => {
  expect(await answerWith('cancelled', (key) => ({ [key]: { action: 'cancel' } }))).toBe('Error: command approval cancelled');
});

test('a requestState that is not a string is refused, whatever the answer', async () => {
  const asked = await server.call(ALICE, 'touch typed-state');
  const { key } = questionOf(asked);
  const reply = await server.call(ALICE, 'touch typed-state', { requestState: { id: asked.requestState }, inputResponses: { [key]: { action: 'accept' } } });
  expect(reply.text ?? reply.error?.message).toMatch(new RegExp(`${STALE_APPROVAL_ANSWER.slice(0, 30).replace(/[()]/g, '\\$&')}|requestState`));
  expect(server.made('typed-state')).toBe(false);
});
