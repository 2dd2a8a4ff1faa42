// Attack: replaying answers. An answered question's state is spent (the
// command ran once, a replay runs nothing); an old answer does not fit a new
// question (each question has its own state and its own inputRequests key);
// a question withdrawn by approval.timeoutMs cannot be answered late.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { STALE_APPROVAL_ANSWER } from '../../src/mcp/approvals/approval-round-trips.js';
import { waitUntil } from '../support/process-table.js';
import { ACCEPT, ALICE, questionOf, startAskingServer, type AskingServer } from '../support/asking-http-server.js';

const COUNTED = 'touch counted && echo ran >> runs';

describe('with the default approval limit', () => {
  let server: AskingServer;
  beforeAll(async () => (server = await startAskingServer()));
  afterAll(() => server.stop());
  const runs = () => readFileSync(path.join(server.dir, 'runs'), 'utf8').split('\n').filter(Boolean).length;

  test('an approval replayed after it was used runs nothing more', async () => {
    const asked = await server.call(ALICE, COUNTED);
    const { key } = questionOf(asked);
    const retry = { requestState: asked.requestState, inputResponses: { [key]: ACCEPT } };
    expect((await server.call(ALICE, COUNTED, retry)).isError).toBeFalsy();
    expect(runs()).toBe(1);

    const replayed = await server.call(ALICE, COUNTED, retry);
    expect(replayed).toMatchObject({ text: `Error: ${STALE_APPROVAL_ANSWER}`, isError: true });
    expect(runs()).toBe(1);
  });

  test("an old question's answer does not approve a new question of the same command", async () => {
    const before = runs();
    const first = await server.call(ALICE, COUNTED);
    const firstKey = questionOf(first).key;
    await server.call(ALICE, COUNTED, { requestState: first.requestState, inputResponses: { [firstKey]: ACCEPT } });
    expect(runs()).toBe(before + 1);

    const second = await server.call(ALICE, COUNTED);
    const secondKey = questionOf(second).key;
    expect(secondKey).not.toBe(firstKey);
    expect(second.requestState).not.toBe(first.requestState);
    // The first answer (its key) under the new state: no answer to this question, so it fails closed.
    const mixed = await server.call(ALICE, COUNTED, { requestState: second.requestState, inputResponses: { [firstKey]: ACCEPT } });
    expect(mixed).toMatchObject({ text: 'Error: command not approved: the approver failed', isError: true });
    expect(runs()).toBe(before + 1);
  });
});

describe('with approval.timeoutMs 300', () => {
  let server: AskingServer;
  beforeAll(async () => (server = await startAskingServer({ approvalTimeoutMs: 300 })));
  afterAll(() => server.stop());

  test('a question the limit withdrew cannot be answered late', async () => {
    const asked = await server.call(ALICE, 'touch too-late');
    const { key } = questionOf(asked);
    await waitUntil(() => server.answerer.roundTrips.waiting === 0, 'the approval limit withdraws the question');
    const late = await server.call(ALICE, 'touch too-late', { requestState: asked.requestState, inputResponses: { [key]: ACCEPT } });
    expect(late).toMatchObject({ text: `Error: ${STALE_APPROVAL_ANSWER}`, isError: true });
    expect(server.made('too-late')).toBe(false);
  });
});
