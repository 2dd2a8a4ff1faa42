import { fakeSession } from '../../support/fake-session.js';
import { doneEvent, startFake } from '../../support/fake-task-process.js';
import { callContext, failure, taskTools, textOf } from '../../support/tool-harness.js';

describe('task_output', () => {
  it('start → deltas never re-delivered → completion notice → final read with the exit status', async () => {
    const { runtime, output } = await taskTools();
    const session = fakeSession('a');
    const { id, process } = await startFake(runtime, { owner: session, label: 'npm run build' });

    process.emit('compiling\n');
    let result = await output.run({ task_id: id }, callContext(session));
    expect(textOf(result)).toBe('compiling\n[status: running]');
    expect(result.value).toEqual({
      kind: 'task_output',
      taskId: id,
      status: 'running',
      output: 'compiling\n',
      lost: false,
      spillPaths: [],
    });
    expect(textOf(await output.run({ task_id: id }, callContext(session)))).toBe('(no new output)\n[status: running]');

    process.emit('done');
    const done = doneEvent(runtime, id);
    process.exit(0);
    await done;
    expect(session.notices).toEqual([
      `background task ${id} (bash: npm run build) finished [status: completed, exit code: 0]. Read its output with task_output.`,
    ]);

    result = await output.run({ task_id: id }, callContext(session));
    expect(textOf(result)).toBe('done\n[status: completed, exit code: 0]');
    expect(result.isError).toBeUndefined();
    expect(result.value).toMatchObject({ status: 'completed', detail: 'exit code: 0' });
    expect(textOf(await output.run({ task_id: id }, callContext(session)))).toBe(
      '(no new output)\n[status: completed, exit code: 0]',
    );
    // The final read showed the status: the queued notice would only repeat it.
    expect(session.notices).toEqual([]);
    await runtime.dispose();
  });

  it('wait: true that times out returns the running status and leaves the task alive', async () => {
    const { runtime, output } = await taskTools();
    const session = fakeSession('a');
    const { id, process } = await startFake(runtime, { owner: session });
    process.emit('partial');
    const result = await output.run({ task_id: id, wait: true, timeout_ms: 20 }, callContext(session));
    expect(textOf(result)).toBe('partial\n[status: running]');
    expect(process.killCalls).toBe(0);
    expect(runtime.get(session, id)?.status).toBe('running');
    await runtime.dispose();
  });

  it('wait: true returns the final output when the task ends, and no notice follows', async () => {
    const { runtime, output } = await taskTools();
    const session = fakeSession('a');
    const { id, process } = await startFake(runtime, { owner: session });
    const pending = output.run({ task_id: id, wait: true }, callContext(session));
    process.emit('bye\n');
    process.exit(4);
    expect(textOf(await pending)).toBe('bye\n[status: failed, exit code: 4]');
    expect(session.notices).toEqual([]);
    await runtime.dispose();
  });

  it('an aborted wait consumes nothing and reports the abort', async () => {
    const { runtime, output } = await taskTools();
    const session = fakeSession('a');
    const { id, process } = await startFake(runtime, { owner: session });
    process.emit('keep me');
    const controller = new AbortController();
    const pending = output.run({ task_id: id, wait: true }, callContext(session, controller.signal));
    controller.abort();
    expect(await pending).toMatchObject(failure('tool call aborted'));
    expect(runtime.read(session, id)?.text).toBe('keep me');
    await runtime.dispose();
  });

  it('reports a lossy read with the spill paths before the status line', async () => {
    const { runtime, output } = await taskTools();
    const { id, process } = await startFake(runtime);
    process.drop(['/tmp/dsh-x/stdout.log', '/tmp/dsh-x/stderr.log']);
    process.emit('tail\n');
    const result = await output.run({ task_id: id }, callContext());
    expect(textOf(result)).toBe(
      'tail\n[some output was dropped from memory; full output: /tmp/dsh-x/stdout.log, /tmp/dsh-x/stderr.log]\n[status: running]',
    );
    expect(result.value).toMatchObject({ lost: true, spillPaths: ['/tmp/dsh-x/stdout.log', '/tmp/dsh-x/stderr.log'] });

    process.drop([]);
    expect(textOf(await output.run({ task_id: id }, callContext()))).toBe(
      '(no new output)\n[some output was dropped from memory; full output: (unavailable)]\n[status: running]',
    );
    await runtime.dispose();
  });

  it('still reports a loss when the command itself printed text that looks like the loss notice', async () => {
    const { runtime, output } = await taskTools();
    const { id, process } = await startFake(runtime);
    process.drop(['/tmp/dsh-x/stdout.log']);
    // e.g. `cat` of an earlier transcript: the command's output is data, never a signal to the tool.
    process.emit('[some output was dropped from memory; full output: /old]\n');
    expect(textOf(await output.run({ task_id: id }, callContext()))).toBe(
      '[some output was dropped from memory; full output: /old]\n' +
        '[some output was dropped from memory; full output: /tmp/dsh-x/stdout.log]\n[status: running]',
    );
    await runtime.dispose();
  });

  it('an unknown id and another session’s id fail with the same text', async () => {
    const { runtime, output } = await taskTools();
    const a = fakeSession('a');
    const b = fakeSession('b');
    const { id } = await startFake(runtime, { owner: a });
    const message = `no background task "${id}" in this session; task_list shows your tasks`;
    expect(await output.run({ task_id: id }, callContext(b))).toMatchObject(failure(message));
    expect(await output.run({ task_id: id, wait: true, timeout_ms: 10 }, callContext(b))).toMatchObject(failure(message));
    expect(await output.run({ task_id: 'bash-99' }, callContext(a))).toMatchObject(
      failure('no background task "bash-99" in this session; task_list shows your tasks'),
    );
    await runtime.dispose();
  });

  it('clamps the wait to the 600000 ms cap', async () => {
    const { runtime, output } = await taskTools();
    const { id, process } = await startFake(runtime);
    const seen: number[] = [];
    const wait = runtime.wait.bind(runtime);
    runtime.wait = (caller, taskId, timeoutMs, signal) => {
      seen.push(timeoutMs);
      return wait(caller, taskId, 0, signal);
    };
    await output.run({ task_id: id, wait: true, timeout_ms: 9_000_000 }, callContext());
    await output.run({ task_id: id, wait: true }, callContext());
    expect(seen).toEqual([600_000, 30_000]);
    process.exit(0);
    await runtime.dispose();
  });
});
