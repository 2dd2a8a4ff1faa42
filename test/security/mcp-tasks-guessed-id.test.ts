// A session guesses task ids (the runtime's ids count, `bash-1`, `bash-2`,
// …, and refused calls are `refused-N`): every guess at another session's
// task answers -32602 like an id that never existed, and the owner's
// running task is untouched.
import { rpcError } from '../support/tasks-kit.js';
import { processesWith, uniqueSleep, waitUntil } from '../support/process-table.js';
import { notFound, tasksPair, type TasksPair } from './support/mcp-tasks-pair.js';

let pair: TasksPair;
beforeAll(async () => {
  pair = await tasksPair();
});
afterAll(() => pair.dispose());

it('guessing ids around the owner\'s reaches nothing, and the owner\'s task keeps running', async () => {
  const { owner, intruder } = pair;
  const sleep = uniqueSleep();
  const task = await owner.tasks.start('bash', { command: `sleep ${sleep}`, description: 'sleep' });
  const refused = await owner.tasks.start('bash', { command: 'x', description: 'x', bogus: true });
  await waitUntil(() => processesWith(sleep).length > 0, 'the owner\'s sleep runs');
  const n = Number(task.taskId.split('-')[1]);
  const guesses = [...Array.from({ length: n + 3 }, (_, i) => `bash-${i + 1}`), refused.taskId, 'refused-1', 'refused-2'];
  for (const guess of guesses) {
    expect(await rpcError(intruder.tasks.get(guess))).toEqual(notFound(guess));
    expect(await rpcError(intruder.tasks.cancel(guess))).toEqual(notFound(guess));
  }
  expect(await intruder.tasks.list()).toEqual([]);
  expect(await owner.tasks.get(task.taskId)).toMatchObject({ status: 'working' });
  expect(processesWith(sleep).length).toBeGreaterThan(0);
  await owner.tasks.cancel(task.taskId);
});
