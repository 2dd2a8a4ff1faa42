// 2026-07-28 task ids (io.modelcontextprotocol/tasks) are unguessable: 32
// random bytes, never the runtime's counter. Guesses — the runtime's own
// `bash-N`, a 2025-style id, well-formed random ids, ids of a neighbour's
// shape — all read as not found, on every task method, for the caller
// that owns real tasks too.
import { bashParams, resultOf, TASK_ID_SHAPE, taskNotFound } from '../support/raw-modern.js';
import { twoCallers } from './support/tasks2026-callers.js';

const callers = twoCallers();

test('guessed ids get the not-found error on tasks/get, tasks/update and tasks/cancel; real ids are random', async () => {
  const alice = callers.alice();
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) {
    const created = resultOf(await alice.request('tools/call', bashParams(`echo ${i}`, { run_in_background: true })));
    ids.push(String(created.taskId));
  }
  for (const id of ids) expect(id).toMatch(TASK_ID_SHAPE);
  expect(new Set(ids).size).toBe(ids.length);
  // No shared prefix beyond the fixed one: nothing counts up.
  const bodies = ids.map((id) => id.slice('dsh-t-'.length));
  expect(new Set(bodies.map((body) => body.slice(0, 4))).size).toBeGreaterThan(4);

  const last = ids[ids.length - 1]!;
  const guesses = [
    'bash-1',
    'bash-8',
    'refused-1',
    'dsh-t-',
    `dsh-t-${'A'.repeat(43)}`,
    `${last.slice(0, -1)}${last.endsWith('A') ? 'B' : 'A'}`,
    last.toUpperCase() === last ? last.toLowerCase() : last.toUpperCase(),
    `${last}A`,
  ];
  for (const guess of guesses) {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const answer = await alice.request(method, { taskId: guess, inputResponses: {} });
      expect({ method, guess, error: answer.error }).toEqual({ method, guess, error: taskNotFound(guess) });
    }
  }
  // The real one still answers.
  expect(resultOf(await alice.request('tasks/get', { taskId: last })).taskId).toBe(last);
}, 60_000);
