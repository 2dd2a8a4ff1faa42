import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { doneEvent, startFake } from '../../support/fake-task-process.js';

describe('LocalTaskRuntime retention of finished tasks', () => {
  it('forgets the oldest fully read tasks past maxFinishedTasksPerOwner, never unread ones', async () => {
    const runtime = new LocalTaskRuntime({ maxFinishedTasksPerOwner: 2 });
    const session = fakeSession('a');
    const other = fakeSession('b');
    const tasks = [];
    for (let i = 0; i < 4; i++) tasks.push(await startFake(runtime, { owner: session }));
    const foreign = await startFake(runtime, { owner: other });
    for (const task of [...tasks, foreign]) {
      const done = doneEvent(runtime, task.id);
      task.process.exit(0);
      await done;
    }
    // bash-1..3 read to the end, bash-4 never read.
    for (const task of tasks.slice(0, 3)) expect(runtime.read(session, task.id)?.snapshot.status).toBe('completed');
    runtime.read(other, foreign.id);

    expect(runtime.list(session).map((snapshot) => snapshot.id)).toEqual(['bash-2', 'bash-3', 'bash-4']);
    expect(runtime.read(session, 'bash-1')).toBeUndefined();
    expect(runtime.list(other).map((snapshot) => snapshot.id)).toEqual([foreign.id]);
    await runtime.dispose();
  });

  it('rejects a bad maxFinishedTasksPerOwner at construction', () => {
    expect(() => new LocalTaskRuntime({ maxFinishedTasksPerOwner: 0 })).toThrow(
      'invalid task runtime config: maxFinishedTasksPerOwner must be a positive integer, got 0',
    );
  });
});
