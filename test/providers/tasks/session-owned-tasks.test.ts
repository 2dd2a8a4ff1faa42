// A session's tasks live in its scope: found by the session object (another
// session, even one with the same id, finds nothing), stopped when it closes
// (newest service first), and still reached by the runtime's own disposal.
import { ScopeKey, scopeOf } from '../../../src/core/session-scope.js';
import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { scopedSession } from '../../support/scoped-session.js';
import { deferredProducer, FakeTaskProcess, startFake } from '../../support/fake-task-process.js';

describe('LocalTaskRuntime keeps each session’s tasks in its scope', () => {
  it('another session with the same id finds none of them: reads like an unknown id', async () => {
    const runtime = new LocalTaskRuntime();
    const [a, twin] = [fakeSession('same'), fakeSession('same')];
    const { id, process } = await startFake(runtime, { owner: a });
    expect(runtime.get(twin, id)).toBeUndefined();
    expect(runtime.get(twin, id)).toEqual(runtime.get(twin, 'bash-999'));
    expect(runtime.list(twin)).toEqual([]);
    expect(runtime.read(twin, id)).toBeUndefined();
    expect(await runtime.kill(twin, id)).toBeUndefined();
    expect(await runtime.wait(twin, id, 5)).toBeUndefined();
    expect(process.killCalls).toBe(0);
    // Admission counts the session's own tasks: the twin is not held back by a's.
    const limited = new LocalTaskRuntime({ maxConcurrentTasksPerOwner: 1 });
    await startFake(limited, { owner: a });
    expect(() => limited.preflight(a)).toThrow(/this session already has 1 running/);
    expect(() => limited.preflight(twin)).not.toThrow();
    await Promise.all([runtime.dispose(), limited.dispose()]);
  });

  it("lists the caller's own and the unowned tasks in the order they started", async () => {
    const runtime = new LocalTaskRuntime();
    const a = fakeSession('a');
    const first = await startFake(runtime, { kind: 'job' });
    const mine = await startFake(runtime, { owner: a });
    const second = await startFake(runtime, { kind: 'job' });
    await startFake(runtime, { owner: fakeSession('b') });
    expect(runtime.list(a).map((t) => t.id)).toEqual([first.id, mine.id, second.id]);
    await runtime.dispose();
  });

  it('a closing session’s tasks read as stopping until they are gone, then as unknown', async () => {
    const runtime = new LocalTaskRuntime();
    const a = scopedSession('a');
    const stubborn = await startFake(runtime, { owner: a });
    stubborn.process.ignoreTerm = true;
    const closing = a.dispose();
    expect(runtime.get(a, stubborn.id)?.status).toBe('stopping');
    stubborn.process.die('SIGKILL');
    await closing;
    expect(runtime.get(a, stubborn.id)).toBeUndefined();
    expect(a.scope.pending).toEqual([]);
    await runtime.dispose();
  });

  it('the scope stops the session’s services newest first: tasks started after another service go before it', async () => {
    const runtime = new LocalTaskRuntime();
    const a = scopedSession('a');
    const order: string[] = [];
    scopeOf(a).get(new ScopeKey<true>('older service'), () => true, () => void order.push('older service'));
    const task = await startFake(runtime, { owner: a });
    const kill = task.process.kill.bind(task.process);
    task.process.kill = () => {
      order.push('task killed');
      return kill();
    };
    scopeOf(a).get(new ScopeKey<true>('newer service'), () => true, () => void order.push('newer service'));
    await a.dispose();
    expect(order).toEqual(['newer service', 'task killed', 'older service']);
    await runtime.dispose();
  });

  it('a session closed while its task is being produced: the task is killed once it exists, and nothing is left', async () => {
    const runtime = new LocalTaskRuntime();
    const a = scopedSession('a');
    const deferred = deferredProducer();
    const starting = runtime.start({ owner: a, kind: 'bash', label: 'slow', producer: deferred.producer });
    const closing = a.dispose();
    const process = new FakeTaskProcess();
    deferred.resolve(process);
    await starting;
    await closing;
    expect(process.killCalls).toBe(1);
    expect(runtime.list(a)).toEqual([]);
    await expect(runtime.start({ owner: a, kind: 'bash', label: 'x', producer: async () => new FakeTaskProcess() })).rejects.toThrow(
      'cannot start a background task: session "a" has been disposed',
    );
    await runtime.dispose();
  });

  it('the runtime’s disposal reaches every open session’s tasks and the unowned ones', async () => {
    const runtime = new LocalTaskRuntime();
    const sessions = [scopedSession('a'), scopedSession('b')];
    const tasks = [await startFake(runtime, { owner: sessions[0] }), await startFake(runtime, { owner: sessions[1] }), await startFake(runtime)];
    await runtime.dispose();
    expect(tasks.map((t) => t.process.killCalls)).toEqual([1, 1, 1]);
    expect(runtime.list(sessions[0])).toEqual([]);
    // The sessions close later: their scope finds nothing left to stop.
    await Promise.all(sessions.map((s) => s.dispose()));
    expect(tasks.map((t) => t.process.killCalls)).toEqual([1, 1, 1]);
  });

  it('disposeOwner(id) stops the tasks of the open sessions with that id and no other', async () => {
    const runtime = new LocalTaskRuntime();
    const [a, b] = [fakeSession('a'), fakeSession('b')];
    const [ta, tb] = [await startFake(runtime, { owner: a }), await startFake(runtime, { owner: b })];
    await runtime.disposeOwner('a');
    expect([ta.process.killCalls, tb.process.killCalls]).toEqual([1, 0]);
    expect(runtime.list(a)).toEqual([]);
    // The session is still open: it may start again.
    await expect(startFake(runtime, { owner: a })).resolves.toMatchObject({ id: 'bash-3' });
    await runtime.dispose();
  });
});
