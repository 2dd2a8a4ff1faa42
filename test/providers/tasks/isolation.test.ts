import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { startFake } from '../../support/fake-task-process.js';

describe('LocalTaskRuntime owner isolation', () => {
  it("session B cannot see, read, wait on or kill session A's task", async () => {
    const runtime = new LocalTaskRuntime();
    const a = fakeSession('a');
    const b = fakeSession('b');
    const { id, process } = await startFake(runtime, { owner: a });
    process.emit('secret');

    expect(runtime.get(b, id)).toBeUndefined();
    expect(runtime.list(b)).toEqual([]);
    expect(runtime.read(b, id)).toBeUndefined();
    expect(await runtime.wait(b, id, 10)).toBeUndefined();
    expect(await runtime.kill(b, id)).toBeUndefined();
    expect(runtime.read(undefined, id)).toBeUndefined();

    // Nothing leaked or changed for the owner.
    expect(process.killCalls).toBe(0);
    expect(runtime.read(a, id)).toMatchObject({ text: 'secret', snapshot: { status: 'running', ownerId: 'a' } });
    await runtime.dispose();
  });

  it('unowned tasks are visible to every caller; owned ones only to their owner', async () => {
    const runtime = new LocalTaskRuntime();
    const a = fakeSession('a');
    const b = fakeSession('b');
    const owned = await startFake(runtime, { owner: a });
    const unowned = await startFake(runtime, { kind: 'job' });
    expect(runtime.list(a).map((t) => t.id)).toEqual([owned.id, unowned.id]);
    expect(runtime.list(b).map((t) => t.id)).toEqual([unowned.id]);
    expect(runtime.list(undefined).map((t) => t.id)).toEqual([unowned.id]);
    expect(runtime.get(b, unowned.id)?.ownerId).toBeUndefined();
    await runtime.dispose();
  });
});
