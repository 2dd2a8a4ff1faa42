import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { deferredProducer, doneEvent, FakeTaskProcess, startFake } from '../../support/fake-task-process.js';

const LIMIT_MESSAGE =
  'too many background tasks: this session already has 10 running (limit 10); ' +
  'stop one with task_kill or wait for one to finish, then retry';

describe('LocalTaskRuntime admission', () => {
  it('refuses the 11th concurrent task of one owner without calling its producer or consuming an id', async () => {
    const runtime = new LocalTaskRuntime();
    const session = fakeSession('a');
    const tasks = [];
    for (let i = 0; i < 10; i++) tasks.push(await startFake(runtime, { owner: session }));
    let calls = 0;
    const producer = async () => {
      calls++;
      return new FakeTaskProcess();
    };
    await expect(runtime.start({ owner: session, kind: 'bash', label: 'x', producer })).rejects.toThrow(LIMIT_MESSAGE);
    expect(() => runtime.preflight(session)).toThrow(LIMIT_MESSAGE);
    expect(calls).toBe(0);
    expect(runtime.list(session)).toHaveLength(10);

    // One finishing frees a slot; the refused start consumed no id.
    const done = doneEvent(runtime, tasks[0]!.id);
    tasks[0]!.process.exit(0);
    await done;
    expect((await runtime.start({ owner: session, kind: 'bash', label: 'x', producer })).id).toBe('bash-11');
    expect(calls).toBe(1);
    await runtime.dispose();
  });

  it('counts stopping tasks and tasks whose producer is still running', async () => {
    const runtime = new LocalTaskRuntime({ maxConcurrentTasksPerOwner: 2 });
    const session = fakeSession('a');
    const stubborn = await startFake(runtime, { owner: session });
    stubborn.process.ignoreTerm = true;
    await runtime.kill(session, stubborn.id);
    expect(runtime.get(session, stubborn.id)?.status).toBe('stopping');

    const slow = deferredProducer();
    const starting = runtime.start({ owner: session, kind: 'bash', label: 'slow', producer: slow.producer });
    expect(() => runtime.preflight(session)).toThrow(/already has 2 running \(limit 2\)/);

    slow.resolve(new FakeTaskProcess());
    await starting;
    stubborn.process.die('SIGKILL');
    await runtime.dispose();
  });

  it('applies the limit per owner', async () => {
    const runtime = new LocalTaskRuntime({ maxConcurrentTasksPerOwner: 1 });
    const a = fakeSession('a');
    const b = fakeSession('b');
    await startFake(runtime, { owner: a });
    expect(() => runtime.preflight(a)).toThrow(/limit 1/);
    expect(() => runtime.preflight(b)).not.toThrow();
    expect(() => runtime.preflight(undefined)).not.toThrow();
    await startFake(runtime);
    expect(() => runtime.preflight(undefined)).toThrow(/unowned pool already has 1 running/);
    await runtime.dispose();
  });

  it('refuses a disposed owner', async () => {
    const runtime = new LocalTaskRuntime();
    const session = fakeSession('gone');
    await session.dispose();
    const producer = jestlessCounter();
    await expect(runtime.start({ owner: session, kind: 'bash', label: 'x', producer: producer.fn })).rejects.toThrow(
      'cannot start a background task: session "gone" has been disposed',
    );
    expect(producer.calls).toBe(0);
    await runtime.dispose();
  });

  it.each([0, -1, 1.5, Number.NaN, '3'])('rejects maxConcurrentTasksPerOwner = %p at construction', (value) => {
    expect(() => new LocalTaskRuntime({ maxConcurrentTasksPerOwner: value as number })).toThrow(
      /invalid task runtime config: maxConcurrentTasksPerOwner must be a positive integer/,
    );
  });

  it('rejects an unknown config key instead of falling back to the default', () => {
    expect(() => new LocalTaskRuntime({ maxConcurrentTasks: 3 } as never)).toThrow(
      'invalid task runtime config: maxConcurrentTasks is not a known key',
    );
  });

  it('a session that refuses the dispose hook rejects the start before an id is taken', async () => {
    const runtime = new LocalTaskRuntime();
    const broken = fakeSession('broken');
    broken.onDispose = () => {
      throw new Error('session is closing');
    };
    const producer = jestlessCounter();
    await expect(runtime.start({ owner: broken, kind: 'bash', label: 'x', producer: producer.fn })).rejects.toThrow(
      'session is closing',
    );
    expect(producer.calls).toBe(0);
    expect((await runtime.start({ kind: 'bash', label: 'x', producer: producer.fn })).id).toBe('bash-1');
    await runtime.dispose();
  });

  it('fills the default over a partial or absent config', async () => {
    const runtime = new LocalTaskRuntime({ maxConcurrentTasksPerOwner: undefined });
    const session = fakeSession('a');
    for (let i = 0; i < 10; i++) await startFake(runtime, { owner: session });
    expect(() => runtime.preflight(session)).toThrow(/limit 10/);
    await runtime.dispose();
  });
});

function jestlessCounter(): { fn: () => Promise<FakeTaskProcess>; readonly calls: number } {
  let calls = 0;
  return {
    fn: async () => {
      calls++;
      return new FakeTaskProcess();
    },
    get calls() {
      return calls;
    },
  };
}
