import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { startFake } from '../../support/fake-task-process.js';

describe('LocalTaskRuntime wait', () => {
  it('resolves with the terminal snapshot when the task settles', async () => {
    const runtime = new LocalTaskRuntime();
    const session = fakeSession('a');
    const { id, process } = await startFake(runtime, { owner: session });
    const waiting = runtime.wait(session, id, 600_000);
    process.exit(2);
    expect(await waiting).toMatchObject({ id, status: 'failed', detail: 'exit code: 2' });
    await runtime.dispose();
  });

  it('returns the live snapshot at timeout and leaves the task running', async () => {
    const runtime = new LocalTaskRuntime();
    const { id, process } = await startFake(runtime);
    expect(await runtime.wait(undefined, id, 20)).toMatchObject({ status: 'running' });
    expect(runtime.get(undefined, id)?.status).toBe('running');
    expect(process.killCalls).toBe(0);
    await runtime.dispose();
  });

  it('aborting stops only the wait', async () => {
    const runtime = new LocalTaskRuntime();
    const { id, process } = await startFake(runtime);
    const controller = new AbortController();
    const waiting = runtime.wait(undefined, id, 600_000, controller.signal);
    controller.abort();
    expect(await waiting).toMatchObject({ status: 'running' });
    expect(process.killCalls).toBe(0);
    const pre = new AbortController();
    pre.abort();
    expect(await runtime.wait(undefined, id, 600_000, pre.signal)).toMatchObject({ status: 'running' });
    await runtime.dispose();
  });

  it('returns at once for a task that already settled', async () => {
    const runtime = new LocalTaskRuntime();
    const { id, process } = await startFake(runtime);
    process.exit(0);
    await runtime.wait(undefined, id, 600_000);
    expect(await runtime.wait(undefined, id, 600_000)).toMatchObject({ status: 'completed' });
    await runtime.dispose();
  });

  it.each([-1, Number.NaN, '10'])('rejects a timeout of %p', async (timeout) => {
    const runtime = new LocalTaskRuntime();
    const { id } = await startFake(runtime);
    await expect(runtime.wait(undefined, id, timeout as number)).rejects.toThrow(/invalid wait timeout/);
    await runtime.dispose();
  });
});
