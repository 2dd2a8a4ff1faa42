// Another session cancels a running task by its real id, through
// tasks/cancel and through task_kill: both are refused as for an unknown id
// and the process keeps running; only its owner stops it.
import { rpcError, textOf } from '../support/tasks-kit.js';
import { processesWith, uniqueSleep, waitUntil } from '../support/process-table.js';
import { notFound, tasksPair, type TasksPair } from './support/mcp-tasks-pair.js';

let pair: TasksPair;
beforeAll(async () => {
  pair = await tasksPair();
});
afterAll(() => pair.dispose());

it('a foreign tasks/cancel or task_kill stops nothing', async () => {
  const { owner, intruder } = pair;
  const sleep = uniqueSleep();
  const task = await owner.tasks.start('bash', { command: `sleep ${sleep}`, description: 'sleep' });
  await waitUntil(() => processesWith(sleep).length > 0, 'the owner\'s sleep runs');

  expect(await rpcError(intruder.tasks.cancel(task.taskId))).toEqual(notFound(task.taskId));
  const killed = await intruder.tasks.call('task_kill', { task_id: task.taskId });
  expect(killed.isError).toBe(true);
  expect(textOf(killed)).toBe(`Error: no background task "${task.taskId}" in this session; task_list shows your tasks`);
  expect(processesWith(sleep).length).toBeGreaterThan(0);
  expect(await owner.tasks.get(task.taskId)).toMatchObject({ status: 'working' });

  expect(await owner.tasks.cancel(task.taskId)).toMatchObject({ status: 'cancelled' });
  expect(processesWith(sleep)).toEqual([]);
});
