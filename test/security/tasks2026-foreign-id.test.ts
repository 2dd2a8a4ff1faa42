// Another caller names a real 2026-07-28 task id (io.modelcontextprotocol/tasks):
// tasks/get and tasks/update answer exactly as for an id that never existed,
// nothing of the output leaks, and the owner still reads all of it afterwards.
import { bashParams, callText, pollUntilDone, resultOf, taskNotFound } from '../support/raw-modern.js';
import { twoCallers } from './support/tasks2026-callers.js';

const callers = twoCallers();

test("bob cannot read or update alice's task: the not-found error of an unknown id, and alice's output stays hers", async () => {
  const alice = callers.alice();
  const bob = callers.bob();
  const created = resultOf(await alice.request('tools/call', bashParams('sleep 0.5; echo alice-secret', { run_in_background: true })));
  const taskId = String(created.taskId);

  // While it runs: the same answer as for a made-up id, whatever the method.
  for (const method of ['tasks/get', 'tasks/update']) {
    const answer = await bob.request(method, { taskId, inputResponses: {} });
    expect(answer.error).toEqual(taskNotFound(taskId));
    expect(JSON.stringify(answer)).not.toContain('alice-secret');
  }
  const madeUp = `dsh-t-${'A'.repeat(43)}`;
  expect((await bob.request('tasks/get', { taskId: madeUp })).error).toEqual(taskNotFound(madeUp));

  // Bob's attempts read nothing: alice's first completed poll gets the whole output.
  const done = await pollUntilDone(alice, taskId);
  expect(callText(done.result)).toMatch(/^alice-secret\n\[status: completed, exit code: 0\]/);
}, 60_000);

test("bob's own task is his alone too: alice gets not-found for it", async () => {
  const bobs = resultOf(await callers.bob().request('tools/call', bashParams('echo bob-only', { run_in_background: true })));
  const taskId = String(bobs.taskId);
  expect((await callers.alice().request('tasks/get', { taskId })).error).toEqual(taskNotFound(taskId));
  expect(callText((await pollUntilDone(callers.bob(), taskId)).result)).toMatch(/^bob-only\n/);
}, 60_000);
