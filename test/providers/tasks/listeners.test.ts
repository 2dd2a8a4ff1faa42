import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import type { Logger } from '../../../src/providers/logging/logger.js';
import type { TaskDoneEvent } from '../../../src/providers/tasks/task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { doneEvent, startFake } from '../../support/fake-task-process.js';

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, error() {}, warn: (m) => warnings.push(m) };
}

describe('LocalTaskRuntime onTaskDone', () => {
  it('contains listener errors (sync and async) and still calls later listeners, once each', async () => {
    const logger = recordingLogger();
    const runtime = new LocalTaskRuntime(undefined, logger);
    const seen: TaskDoneEvent[] = [];
    runtime.onTaskDone(() => {
      throw new Error('listener bug');
    });
    runtime.onTaskDone(async () => {
      throw new Error('async listener bug');
    });
    runtime.onTaskDone((event) => seen.push(event));
    const { id, process } = await startFake(runtime);
    const done = doneEvent(runtime, id);
    process.exit(0);
    await done;
    await runtime.wait(undefined, id, 600_000);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.snapshot).toMatchObject({ id, status: 'completed' });
    await runtime.dispose();
    expect(logger.warnings.some((w) => w.includes('listener bug'))).toBe(true);
    expect(logger.warnings.some((w) => w.includes('async listener bug'))).toBe(true);
  });

  it('unsubscribe stops delivery', async () => {
    const runtime = new LocalTaskRuntime();
    const seen: string[] = [];
    const unsubscribe = runtime.onTaskDone((event) => seen.push(event.snapshot.id));
    unsubscribe();
    unsubscribe();
    const { id, process } = await startFake(runtime);
    const done = doneEvent(runtime, id);
    process.exit(0);
    await done;
    expect(seen).toEqual([]);
    await runtime.dispose();
  });

  it('marks the event reported when the model killed the task or a wait was watching', async () => {
    const runtime = new LocalTaskRuntime();
    const session = fakeSession('a');
    const natural = await startFake(runtime, { owner: session });
    const killed = await startFake(runtime, { owner: session });
    const waited = await startFake(runtime, { owner: session });

    let done = doneEvent(runtime, natural.id);
    natural.process.exit(0);
    expect(await done).toMatchObject({ reported: false, owner: session });

    done = doneEvent(runtime, killed.id);
    await runtime.kill(session, killed.id);
    expect((await done).reported).toBe(true);

    done = doneEvent(runtime, waited.id);
    const waiting = runtime.wait(session, waited.id, 600_000);
    waited.process.exit(0);
    expect((await done).reported).toBe(true);
    await waiting;
    await runtime.dispose();
  });
});
