import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import type { Logger } from '../../../src/providers/logging/logger.js';
import { TaskCompletionNotifier } from '../../../src/tools/tasks/task-completion-notifier.js';
import { fakeSession } from '../../support/fake-session.js';
import { doneEvent, startFake } from '../../support/fake-task-process.js';
import { taskTools } from '../../support/tool-harness.js';

describe('completion notices', () => {
  it('three tool instances sharing one notifier send exactly one notice', async () => {
    const { runtime } = await taskTools();
    const session = fakeSession('a');
    const { id, process } = await startFake(runtime, { owner: session, kind: 'bash', label: 'sleep 1; echo done' });
    const done = doneEvent(runtime, id);
    process.exit(0);
    await done;
    expect(session.notices).toEqual([
      'background task bash-1 (bash: sleep 1; echo done) finished [status: completed, exit code: 0]. Read its output with task_output.',
    ]);
    await runtime.dispose();
  });

  it('a disposed session gets no notice and nothing throws', async () => {
    const runtime = new LocalTaskRuntime();
    new TaskCompletionNotifier().attach(runtime);
    const session = fakeSession('a');
    const { id } = await startFake(runtime, { owner: session });
    const done = doneEvent(runtime, id);
    await session.dispose(); // kills the task; its settlement reaches the notifier
    expect((await done).snapshot.status).toBe('killed');
    expect(session.notifyCalls).toBe(0);
    expect(session.notices).toEqual([]);
    await runtime.dispose();
  });

  it('unowned tasks and tasks already reported send nothing', async () => {
    const { runtime } = await taskTools();
    const session = fakeSession('a');
    const unowned = await startFake(runtime);
    const waited = await startFake(runtime, { owner: session });
    unowned.process.exit(0);
    const waiting = runtime.wait(session, waited.id, 600_000);
    waited.process.exit(0);
    await waiting;
    await runtime.wait(undefined, unowned.id, 600_000);
    expect(session.notifyCalls).toBe(0);
    await runtime.dispose();
  });

  it('a notify that throws is contained and logged', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (m) => warnings.push(m) };
    const runtime = new LocalTaskRuntime();
    new TaskCompletionNotifier(logger).attach(runtime);
    const session = fakeSession('a');
    session.notify = () => {
      throw new Error('transcript closed');
    };
    const { id, process } = await startFake(runtime, { owner: session });
    const done = doneEvent(runtime, id);
    process.exit(0);
    await done;
    expect(warnings).toEqual([expect.stringContaining('transcript closed')]);
    await runtime.dispose();
  });

  it('dispose unsubscribes; a swapped runtime gets its own subscription', async () => {
    const notifier = new TaskCompletionNotifier();
    const first = new LocalTaskRuntime();
    const second = new LocalTaskRuntime();
    notifier.attach(first);
    notifier.attach(second);
    const session = fakeSession('a');
    const a = await startFake(first, { owner: session });
    const b = await startFake(second, { owner: session });
    let done = doneEvent(second, b.id);
    b.process.exit(0);
    await done;
    expect(session.notices).toHaveLength(1);

    notifier.dispose();
    done = doneEvent(first, a.id);
    a.process.exit(0);
    await done;
    expect(session.notices).toHaveLength(1);
    await Promise.all([first.dispose(), second.dispose()]);
  });
});
