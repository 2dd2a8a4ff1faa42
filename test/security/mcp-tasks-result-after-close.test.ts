// The owner's session closes while its task runs and a tasks/result waits:
// the process is gone (no orphan), and afterwards no other session can get,
// read or cancel the task by its id.
import { rpcError } from '../support/tasks-kit.js';
import { processesWith, uniqueSleep, waitUntil, waitUntilGone } from '../support/process-table.js';
import { notFound, tasksPair, type TasksPair } from './support/mcp-tasks-pair.js';

let pair: TasksPair;
beforeAll(async () => {
  pair = await tasksPair();
});
afterAll(() => pair.dispose());

it('closing the owner kills the task and ends its pending result; the id then reaches nothing', async () => {
  const { owner, intruder } = pair;
  const sleep = uniqueSleep();
  const task = await owner.tasks.start('bash', { command: `sleep ${sleep}`, description: 'sleep' });
  await waitUntil(() => processesWith(sleep).length > 0, 'the owner\'s sleep runs');
  const pending = owner.tasks.result(task.taskId).then(
    () => 'answered',
    () => 'rejected',
  );

  await owner.connection.close();
  expect(await waitUntilGone(sleep)).toEqual([]);
  expect(await pending).toBe('rejected');

  expect(await rpcError(intruder.tasks.get(task.taskId))).toEqual(notFound(task.taskId));
  expect(await rpcError(intruder.tasks.result(task.taskId))).toEqual(notFound(task.taskId));
  expect(await rpcError(intruder.tasks.cancel(task.taskId))).toEqual(notFound(task.taskId));
  expect(await intruder.tasks.list()).toEqual([]);
});
