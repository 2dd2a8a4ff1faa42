import { fakeSession } from '../../support/fake-session.js';
import { startFake } from '../../support/fake-task-process.js';
import { callContext, taskTools, textOf } from '../../support/tool-harness.js';

describe('task_list', () => {
  it('says so when there are no tasks', async () => {
    const { runtime, list } = await taskTools();
    const result = await list.run({}, callContext(fakeSession('a')));
    expect(textOf(result)).toBe('(no background tasks)');
    expect(result.value).toEqual({ kind: 'task_list', tasks: [] });
    await runtime.dispose();
  });

  it("lists the caller's tasks one per line with an em dash, labels on one line", async () => {
    const { runtime, list } = await taskTools();
    const a = fakeSession('a');
    await startFake(runtime, { owner: a, label: 'npm test' });
    const second = await startFake(runtime, { owner: a, kind: 'bash', label: 'for i in 1 2; do\n  echo $i\ndone' });
    await startFake(runtime, { owner: fakeSession('b'), label: 'hidden' });
    second.process.exit(1);
    await runtime.wait(a, second.id, 600_000);

    const result = await list.run({}, callContext(a));
    expect(textOf(result)).toBe('bash-1 [bash] running — npm test\nbash-2 [bash] failed — for i in 1 2; do echo $i done');
    expect(result.value).toMatchObject({ kind: 'task_list', tasks: [{ id: 'bash-1' }, { id: 'bash-2', status: 'failed' }] });
    await runtime.dispose();
  });

  it('clips very long labels', async () => {
    const { runtime, list } = await taskTools();
    await startFake(runtime, { label: 'x'.repeat(1000) });
    const line = textOf(await list.run({}, callContext()));
    expect(line.length).toBeLessThan(260);
    expect(line.endsWith('…')).toBe(true);
    await runtime.dispose();
  });
});
