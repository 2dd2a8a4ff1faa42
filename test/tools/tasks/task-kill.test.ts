import { fakeSession } from '../../support/fake-session.js';
import { doneEvent, startFake } from '../../support/fake-task-process.js';
import { callContext, failure, taskTools, textOf } from '../../support/tool-harness.js';

describe('task_kill', () => {
  it('requests cancellation; the killed task sends no completion notice and reads as killed', async () => {
    const { runtime, kill, output } = await taskTools();
    const session = fakeSession('a');
    const { id, process } = await startFake(runtime, { owner: session });
    process.ignoreTerm = true;
    const result = await kill.run({ task_id: id, reason: 'wrong flags' }, callContext(session));
    expect(textOf(result)).toBe(`requested cancellation of task ${id}`);
    expect(result.value).toEqual({ kind: 'task_kill', taskId: id, alreadyFinished: false, status: 'stopping' });
    expect(textOf(await output.run({ task_id: id }, callContext(session)))).toBe('(no new output)\n[status: stopping]');

    const done = doneEvent(runtime, id);
    process.die('SIGKILL');
    await done;
    expect(session.notices).toEqual([]);
    expect(textOf(await output.run({ task_id: id }, callContext(session)))).toBe(
      '(no new output)\n[status: killed, signal: SIGKILL]',
    );
    await runtime.dispose();
  });

  it('says when the task had already finished', async () => {
    const { runtime, kill } = await taskTools();
    const session = fakeSession('a');
    const { id, process } = await startFake(runtime, { owner: session });
    process.exit(0);
    await runtime.wait(session, id, 600_000);
    const result = await kill.run({ task_id: id }, callContext(session));
    expect(textOf(result)).toBe(`task ${id} had already finished [status: completed, exit code: 0]`);
    expect(result.value).toMatchObject({ alreadyFinished: true, status: 'completed', detail: 'exit code: 0' });
    expect(process.killCalls).toBe(0);
    await runtime.dispose();
  });

  it("cannot kill another session's task (same text as an unknown id)", async () => {
    const { runtime, kill } = await taskTools();
    const { id, process } = await startFake(runtime, { owner: fakeSession('a') });
    expect(await kill.run({ task_id: id }, callContext(fakeSession('b')))).toMatchObject(
      failure(`no background task "${id}" in this session; task_list shows your tasks`),
    );
    expect(process.killCalls).toBe(0);
    await runtime.dispose();
  });
});
