import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import type { TaskDoneEvent } from '../../../src/providers/tasks/task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { deferredProducer, FakeTaskProcess, startFake } from '../../support/fake-task-process.js';

describe('LocalTaskRuntime disposal', () => {
  it("disposing a session kills its live tasks, awaits them, and leaves other sessions' tasks alone", async () => {
    const runtime = new LocalTaskRuntime();
    const a = fakeSession('a');
    const b = fakeSession('b');
    const first = await startFake(runtime, { owner: a });
    const stubborn = await startFake(runtime, { owner: a });
    stubborn.process.ignoreTerm = true;
    const other = await startFake(runtime, { owner: b });
    const events: TaskDoneEvent[] = [];
    runtime.onTaskDone((event) => events.push(event));

    let disposed = false;
    const disposing = a.dispose().then(() => (disposed = true));
    expect(first.process.killCalls).toBe(1);
    expect(stubborn.process.killCalls).toBe(1);
    expect(disposed).toBe(false); // still awaiting the stubborn one
    stubborn.process.die('SIGKILL');
    await disposing;

    expect(events.map((e) => [e.snapshot.id, e.snapshot.status, e.reported])).toEqual([
      [first.id, 'killed', false],
      [stubborn.id, 'killed', false],
    ]);
    expect(runtime.list(a)).toEqual([]);
    expect(other.process.killCalls).toBe(0);
    expect(runtime.get(b, other.id)?.status).toBe('running');
    await expect(runtime.start({ owner: a, kind: 'bash', label: 'x', producer: async () => new FakeTaskProcess() })).rejects.toThrow(
      /session "a" has been disposed/,
    );
    await runtime.dispose();
  });

  it('registers one dispose hook per owner, however many tasks it starts', async () => {
    const runtime = new LocalTaskRuntime();
    const session = fakeSession('a');
    let hooks = 0;
    const onDispose = session.onDispose.bind(session);
    session.onDispose = (hook) => {
      hooks++;
      onDispose(hook);
    };
    await startFake(runtime, { owner: session });
    await startFake(runtime, { owner: session });
    expect(hooks).toBe(1);
    await session.dispose();
    await runtime.dispose();
  });

  it('a task still spawning when its owner is disposed is killed as soon as it exists', async () => {
    const runtime = new LocalTaskRuntime();
    const session = fakeSession('a');
    const deferred = deferredProducer();
    const starting = runtime.start({ owner: session, kind: 'bash', label: 'slow', producer: deferred.producer });
    const disposing = session.dispose();
    const process = new FakeTaskProcess();
    deferred.resolve(process);
    expect(await starting).toMatchObject({ id: 'bash-1' });
    await disposing;
    expect(process.killCalls).toBe(1);
    expect(process.isFinished).toBe(true);
    await runtime.dispose();
  });

  it('runtime dispose kills every live task, awaits them, and refuses new starts', async () => {
    const runtime = new LocalTaskRuntime();
    const owned = await startFake(runtime, { owner: fakeSession('a') });
    const unowned = await startFake(runtime);
    const finished = await startFake(runtime);
    finished.process.exit(0);
    await runtime.wait(undefined, finished.id, 600_000);

    await runtime.dispose();
    expect(owned.process.killCalls).toBe(1);
    expect(unowned.process.killCalls).toBe(1);
    expect(finished.process.killCalls).toBe(0);
    expect(() => runtime.preflight(undefined)).toThrow(/task runtime has been disposed/);
    await expect(runtime.start({ kind: 'bash', label: 'x', producer: async () => new FakeTaskProcess() })).rejects.toThrow(
      /disposed/,
    );
    await expect(runtime.dispose()).resolves.toBeUndefined();
  });
});
