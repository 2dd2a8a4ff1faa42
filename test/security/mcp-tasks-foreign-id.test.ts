// Another session names an existing task's real id: tasks/get, tasks/result
// and task_output answer as for an unknown id, list nothing, and read
// nothing (the owner still gets its whole output afterwards).
import { rpcError, textOf } from '../support/tasks-kit.js';
import { notFound, tasksPair, type TasksPair } from './support/mcp-tasks-pair.js';

let pair: TasksPair;
beforeAll(async () => {
  pair = await tasksPair();
});
afterAll(() => pair.dispose());

it('a finished task of another session reads exactly like an unknown id, and its output stays with its owner', async () => {
  const { owner, intruder } = pair;
  const task = await owner.tasks.start('bash', { command: 'echo secret-output', description: 'secret' });
  await owner.tasks.statusOf(task.taskId, 'completed');

  expect(await rpcError(intruder.tasks.get(task.taskId))).toEqual(notFound(task.taskId));
  expect(await rpcError(intruder.tasks.result(task.taskId))).toEqual(notFound(task.taskId));
  expect(await intruder.tasks.list()).toEqual([]);
  const viaTool = await intruder.tasks.call('task_output', { task_id: task.taskId });
  expect(viaTool.isError).toBe(true);
  expect(textOf(viaTool)).not.toContain('secret-output');
  // No status notification of the owner's task reached the other session.
  expect(intruder.tasks.statuses).toEqual([]);

  expect(textOf(await owner.tasks.result(task.taskId))).toBe('secret-output\n[status: completed, exit code: 0]');
});
