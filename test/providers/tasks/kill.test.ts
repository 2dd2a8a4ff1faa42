import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { deferredProducer, doneEvent, FakeTaskProcess, startFake } from '../../support/fake-task-process.js';

describe('LocalTaskRuntime kill', () => {
  it('moves to stopping at once, then to killed with the signal', async () => {
    const runtime = new LocalTaskRuntime();
    const session = fakeSession('a');
    const { id, process } = await startFake(runtime, { owner: session });
    process.ignoreTerm = true;
    const result = await runtime.kill(session, id, 'no longer needed');
    expect(result).toMatchObject({ alreadyFinished: false, snapshot: { status: 'stopping' } });
    expect(runtime.get(session, id)?.status).toBe('stopping');
    expect(process.killCalls).toBe(1);

    const done = doneEvent(runtime, id);
    process.die('SIGKILL');
    expect((await done).snapshot).toMatchObject({ status: 'killed', detail: 'signal: SIGKILL' });
    await runtime.dispose();
  });

  it('a process that obeys TERM ends killed with signal: SIGTERM', async () => {
    const runtime = new LocalTaskRuntime();
    const { id } = await startFake(runtime);
    const done = doneEvent(runtime, id);
    await runtime.kill(undefined, id);
    expect((await done).snapshot).toMatchObject({ status: 'killed', detail: 'signal: SIGTERM' });
    await runtime.dispose();
  });

  it('reports a finished task as already finished and leaves it as it was', async () => {
    const runtime = new LocalTaskRuntime();
    const { id, process } = await startFake(runtime);
    const done = doneEvent(runtime, id);
    process.exit(0);
    await done;
    const result = await runtime.kill(undefined, id);
    expect(result).toMatchObject({ alreadyFinished: true, snapshot: { status: 'completed', detail: 'exit code: 0' } });
    expect(process.killCalls).toBe(0);
    await runtime.dispose();
  });

  it('first settlement wins: a process that exited on its own before the kill stays completed', async () => {
    const runtime = new LocalTaskRuntime();
    const { id, process } = await startFake(runtime);
    const done = doneEvent(runtime, id);
    process.exit(0); // exited, but the runtime has not observed it yet
    const result = await runtime.kill(undefined, id);
    expect(result?.alreadyFinished).toBe(false);
    expect((await done).snapshot).toMatchObject({ status: 'completed', detail: 'exit code: 0' });
    await runtime.dispose();
  });

  it('a TERM-trapping process that exits by itself after the kill reads as killed with its exit code', async () => {
    const runtime = new LocalTaskRuntime();
    const { id, process } = await startFake(runtime);
    process.ignoreTerm = true;
    await runtime.kill(undefined, id);
    const done = doneEvent(runtime, id);
    process.exit(143);
    expect((await done).snapshot).toMatchObject({ status: 'killed', detail: 'exit code: 143' });
    await runtime.dispose();
  });

  it('a kill while the producer is still running stops the process once it exists', async () => {
    const runtime = new LocalTaskRuntime();
    const deferred = deferredProducer();
    const starting = runtime.start({ kind: 'bash', label: 'slow', producer: deferred.producer });
    expect(runtime.get(undefined, 'bash-1')?.status).toBe('running');
    await runtime.kill(undefined, 'bash-1');
    expect(runtime.get(undefined, 'bash-1')?.status).toBe('stopping');
    const process = new FakeTaskProcess();
    const done = doneEvent(runtime, 'bash-1');
    deferred.resolve(process);
    await starting;
    expect((await done).snapshot.status).toBe('killed');
    expect(process.killCalls).toBe(1);
    await runtime.dispose();
  });

  it('a kill that throws is contained and the task settles when the process ends', async () => {
    const runtime = new LocalTaskRuntime();
    const { id, process } = await startFake(runtime);
    process.kill = async () => {
      throw new Error('EPERM');
    };
    await expect(runtime.kill(undefined, id)).resolves.toMatchObject({ alreadyFinished: false });
    const done = doneEvent(runtime, id);
    process.exit(0);
    expect((await done).snapshot.status).toBe('completed');
    await runtime.dispose();
  });
});
