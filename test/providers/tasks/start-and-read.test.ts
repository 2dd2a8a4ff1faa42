import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { doneEvent, FakeTaskProcess, startFake } from '../../support/fake-task-process.js';

describe('LocalTaskRuntime start and read', () => {
  it('numbers ids per kind, per runtime instance', async () => {
    const a = new LocalTaskRuntime();
    const b = new LocalTaskRuntime();
    expect((await startFake(a, { kind: 'bash' })).id).toBe('bash-1');
    expect((await startFake(a, { kind: 'bash' })).id).toBe('bash-2');
    expect((await startFake(a, { kind: 'watch' })).id).toBe('watch-1');
    expect((await startFake(b, { kind: 'bash' })).id).toBe('bash-1');
    await Promise.all([a.dispose(), b.dispose()]);
  });

  it('delivers each delta once, then the remaining output with the terminal status', async () => {
    const runtime = new LocalTaskRuntime();
    const session = fakeSession('s1');
    const { id, process } = await startFake(runtime, { owner: session, label: 'make' });

    process.emit('one\n');
    expect(runtime.read(session, id)).toMatchObject({ text: 'one\n', snapshot: { status: 'running' } });
    expect(runtime.read(session, id)?.text).toBe('');
    process.emit('two\n');
    expect(runtime.read(session, id)?.text).toBe('two\n');

    process.emit('three\n');
    const done = doneEvent(runtime, id);
    process.exit(0);
    await done;
    const final = runtime.read(session, id);
    expect(final).toMatchObject({ text: 'three\n', snapshot: { status: 'completed', detail: 'exit code: 0' } });
    expect(runtime.read(session, id)?.text).toBe('');
    await runtime.dispose();
  });

  it('get and list are snapshots that consume nothing', async () => {
    const runtime = new LocalTaskRuntime();
    const { id, process } = await startFake(runtime, { label: 'sleep 5' });
    process.emit('kept');
    expect(runtime.get(undefined, id)).toMatchObject({ id, kind: 'bash', label: 'sleep 5', status: 'running' });
    expect(runtime.list(undefined).map((t) => t.id)).toEqual([id]);
    expect(process.reads).toBe(0);
    expect(runtime.read(undefined, id)?.text).toBe('kept');
    expect(Object.isFrozen(runtime.get(undefined, id))).toBe(true);
    await runtime.dispose();
  });

  it.each([
    ['a non-zero exit', (p: FakeTaskProcess) => p.exit(3), 'failed', 'exit code: 3'],
    ['a signal it did not get from us', (p: FakeTaskProcess) => p.die('SIGSEGV'), 'failed', 'signal: SIGSEGV'],
    ['an executor error', (p: FakeTaskProcess) => p.fail('spawn bash ENOENT'), 'failed', 'error: spawn bash ENOENT'],
  ])('maps %s to its status and detail', async (_name, settle, status, detail) => {
    const runtime = new LocalTaskRuntime();
    const { id, process } = await startFake(runtime);
    const done = doneEvent(runtime, id);
    settle(process);
    expect((await done).snapshot).toMatchObject({ status, detail });
    expect(runtime.get(undefined, id)?.outcome).toBeDefined();
    expect(runtime.get(undefined, id)?.endedAt).toEqual(expect.any(Number));
    await runtime.dispose();
  });

  it('a producer that throws leaves a failed task with the error readable', async () => {
    const runtime = new LocalTaskRuntime();
    const snapshot = await runtime.start({
      kind: 'bash',
      label: 'x',
      producer: async () => {
        throw new Error('spawn failed: no such directory /nope');
      },
    });
    expect(snapshot).toMatchObject({ id: 'bash-1', status: 'failed', detail: 'error: spawn failed: no such directory /nope' });
    expect(runtime.read(undefined, 'bash-1')?.snapshot.status).toBe('failed');
    await runtime.dispose();
  });

  it('a producer that returns no process handle fails the task instead of crashing', async () => {
    const runtime = new LocalTaskRuntime();
    const snapshot = await runtime.start({ kind: 'bash', label: 'x', producer: async () => ({}) as never });
    expect(snapshot.status).toBe('failed');
    expect(snapshot.detail).toMatch(/no process handle/);
    await runtime.dispose();
  });

  it('rejects a malformed spec without consuming an id or calling the producer', async () => {
    const runtime = new LocalTaskRuntime();
    let calls = 0;
    const producer = async () => {
      calls++;
      return new FakeTaskProcess();
    };
    await expect(runtime.start({ kind: 'bad kind', label: 'x', producer })).rejects.toThrow(/invalid task kind/);
    await expect(runtime.start({ kind: 'bash', label: 42 as never, producer })).rejects.toThrow(/invalid task label/);
    await expect(runtime.start({ kind: 'bash', label: 'x', producer: 'no' as never })).rejects.toThrow(
      /invalid task producer/,
    );
    expect(calls).toBe(0);
    expect((await runtime.start({ kind: 'bash', label: 'x', producer })).id).toBe('bash-1');
    await runtime.dispose();
  });

  it('unknown ids read as undefined everywhere', async () => {
    const runtime = new LocalTaskRuntime();
    expect(runtime.get(undefined, 'bash-9')).toBeUndefined();
    expect(runtime.read(undefined, 'bash-9')).toBeUndefined();
    expect(await runtime.kill(undefined, 'bash-9')).toBeUndefined();
    expect(await runtime.wait(undefined, 'bash-9', 10)).toBeUndefined();
    expect(runtime.read(undefined, 42 as never)).toBeUndefined();
    await runtime.dispose();
  });
});
