// Another caller cancels a running 2026-07-28 task by its real id
// (io.modelcontextprotocol/tasks): the not-found error, the process keeps
// running, the owner still sees it working and can cancel it itself.
import { processesWith } from '../support/mcp-clients.js';
import { bashParams, resultOf, taskNotFound } from '../support/raw-modern.js';
import { uniqueSleep, waitUntilRunning } from '../support/process-table.js';
import { twoCallers } from './support/tasks2026-callers.js';

const callers = twoCallers();

test("bob's tasks/cancel of alice's running task is refused as unknown and kills nothing", async () => {
  const alice = callers.alice();
  const bob = callers.bob();
  const sleep = uniqueSleep();
  const created = resultOf(await alice.request('tools/call', bashParams(`sleep ${sleep}`, { run_in_background: true })));
  const taskId = String(created.taskId);
  const pids = await waitUntilRunning(sleep);
  expect(pids).not.toEqual([]);

  expect((await bob.request('tasks/cancel', { taskId })).error).toEqual(taskNotFound(taskId));
  expect(processesWith(sleep)).toEqual(pids);
  expect(resultOf(await alice.request('tasks/get', { taskId })).status).toBe('working');

  expect(resultOf(await alice.request('tasks/cancel', { taskId }))).toMatchObject({ resultType: 'complete' });
  expect(processesWith(sleep)).toEqual([]);
  expect(resultOf(await alice.request('tasks/get', { taskId })).status).toBe('cancelled');
}, 60_000);
