import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalShellExecutor } from '../../../src/providers/backends/local/local-shell-executor.js';
import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import type { TaskCaller } from '../../../src/providers/tasks/task-runtime.js';
import { fakeSession } from '../../support/fake-session.js';
import { callContext, failure, taskTools, textOf } from '../../support/tool-harness.js';
import { doneEvent } from '../../support/fake-task-process.js';
import { processesWith, waitUntil } from '../../support/process-table.js';

// Real bash under the real executor: the process table is the witness.

const MARKER = `1000.${process.pid}${Date.now() % 1000}`;

describe('LocalTaskRuntime with real processes', () => {
  let workdir: string;
  let executor: LocalShellExecutor;
  let tools: Awaited<ReturnType<typeof taskTools>>;

  beforeEach(async () => {
    workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-tasks-'));
    executor = new LocalShellExecutor({ maxOutputBytes: 2_000, graceMs: 300 });
    tools = await taskTools(new LocalTaskRuntime());
  });

  afterEach(async () => {
    await tools.runtime.dispose();
    await tools.host.dispose();
    await executor.dispose();
    fs.rmSync(workdir, { recursive: true, force: true });
    // Every sleep this file starts: MARKER itself and its numbered variants.
    expect(['', '1', '2', '3', '4'].flatMap((n) => processesWith(`${MARKER}${n}`))).toEqual([]);
  });

  function startBash(command: string, owner?: TaskCaller) {
    return tools.runtime.start({
      owner,
      kind: 'bash',
      label: command,
      producer: () => executor.start(executor.checkRequest({ command, workdir })),
    });
  }

  /** Reads until the accumulated output contains `text`. */
  async function readUntil(owner: TaskCaller, id: string, text: string): Promise<string> {
    let seen = '';
    await waitUntil(() => {
      seen += tools.runtime.read(owner, id)?.text ?? '';
      return seen.includes(text);
    }, `"${text}" from ${id}`);
    return seen;
  }

  it('start → deltas once → completion notice → final read with [status: completed, exit code: 0]', async () => {
    const session = fakeSession('a');
    const gate = path.join(workdir, 'go');
    const command = `echo one; while [ ! -e ${gate} ]; do sleep 0.02; done; echo two`;
    const { id } = await startBash(command, session);

    expect(await readUntil(session, id, 'one\n')).toBe('one\n');
    expect(textOf(await tools.output.run({ task_id: id }, callContext(session)))).toBe(
      '(no new output)\n[status: running]',
    );

    const done = doneEvent(tools.runtime, id);
    fs.writeFileSync(gate, '');
    await done;
    expect(session.notices).toEqual([
      `background task ${id} (bash: ${command}) finished [status: completed, exit code: 0]. Read its output with task_output.`,
    ]);
    expect(textOf(await tools.output.run({ task_id: id }, callContext(session)))).toBe(
      'two\n[status: completed, exit code: 0]',
    );
  });

  it('the newcomer path: sleep 1; echo done, listed, waited on, read', async () => {
    const session = fakeSession('a');
    const { id } = await startBash('sleep 1; echo done', session);
    expect(textOf(await tools.list.run({}, callContext(session)))).toBe(`${id} [bash] running — sleep 1; echo done`);
    const result = await tools.output.run({ task_id: id, wait: true, timeout_ms: 60_000 }, callContext(session));
    expect(textOf(result)).toBe('done\n[status: completed, exit code: 0]');
    expect(session.notices).toEqual([]);
  });

  it('wait: true that times out leaves the real process running', async () => {
    const session = fakeSession('a');
    const { id } = await startBash(`sleep ${MARKER}`, session);
    await waitUntil(() => processesWith(MARKER).length > 0, 'the sleep to start');
    const result = await tools.output.run({ task_id: id, wait: true, timeout_ms: 50 }, callContext(session));
    expect(textOf(result)).toBe('(no new output)\n[status: running]');
    expect(processesWith(MARKER)).not.toEqual([]);
    expect(tools.runtime.get(session, id)?.status).toBe('running');
  });

  it('task_kill of a TERM-ignoring process ends killed (SIGKILL after the grace), with no notice', async () => {
    const session = fakeSession('a');
    const { id } = await startBash(`trap '' TERM; echo ready; sleep ${MARKER}`, session);
    await readUntil(session, id, 'ready');
    await waitUntil(() => processesWith(MARKER).length > 0, 'the sleep to start');

    const done = doneEvent(tools.runtime, id);
    expect(textOf(await tools.kill.run({ task_id: id }, callContext(session)))).toBe(`requested cancellation of task ${id}`);
    expect(tools.runtime.get(session, id)?.status).toBe('stopping');
    expect((await done).snapshot).toMatchObject({ status: 'killed', detail: 'signal: SIGKILL' });
    expect(processesWith(MARKER)).toEqual([]);
    expect(session.notices).toEqual([]);
  });

  it('disposing a session kills its tasks: none left in the process table', async () => {
    const a = fakeSession('a');
    const b = fakeSession('b');
    await startBash(`sleep ${MARKER}1`, a);
    await startBash(`sleep ${MARKER}2 & sleep ${MARKER}3; wait`, a);
    const other = await startBash(`sleep ${MARKER}4`, b);
    const count = () => [1, 2, 3, 4].reduce((sum, n) => sum + processesWith(`${MARKER}${n}`).length, 0);
    await waitUntil(() => count() >= 4, 'four sleeps to start');

    await a.dispose();
    expect(processesWith(`${MARKER}1`)).toEqual([]);
    expect(processesWith(`${MARKER}2`)).toEqual([]);
    expect(processesWith(`${MARKER}3`)).toEqual([]);
    expect(processesWith(`${MARKER}4`)).toHaveLength(1);
    expect(tools.runtime.get(b, other.id)?.status).toBe('running');
    expect(a.notices).toEqual([]);
  });

  it("session B cannot read, wait on or kill session A's real task", async () => {
    const a = fakeSession('a');
    const b = fakeSession('b');
    // Its own marker: `MARKER` alone also matches the sleeps other tests of this file leave running or dying.
    const mine = `${MARKER}9`;
    const { id } = await startBash(`echo secret; sleep ${mine}`, a);
    await waitUntil(() => processesWith(mine).length > 0, 'the sleep to start');
    const message = `no background task "${id}" in this session; task_list shows your tasks`;
    expect(await tools.output.run({ task_id: id }, callContext(b))).toMatchObject(failure(message));
    expect(await tools.output.run({ task_id: id, wait: true, timeout_ms: 10 }, callContext(b))).toMatchObject(failure(message));
    expect(await tools.kill.run({ task_id: id }, callContext(b))).toMatchObject(failure(message));
    expect(processesWith(mine)).toHaveLength(1);
    expect(await readUntil(a, id, 'secret')).toBe('secret\n');
  });

  it('output over the memory bound reports the loss and the spill file is complete', async () => {
    const session = fakeSession('a');
    const { id } = await startBash('seq 1 5000', session);
    await tools.runtime.wait(session, id, 60_000);
    const result = await tools.output.run({ task_id: id }, callContext(session));
    const value = result.value!;
    expect(value.lost).toBe(true);
    expect(value.spillPaths).toHaveLength(1);
    const expected = Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join('');
    expect(fs.readFileSync(value.spillPaths[0]!, 'utf8')).toBe(expected);
    expect(expected.endsWith(value.output)).toBe(true);
    expect(textOf(result).endsWith(
      `\n[some output was dropped from memory; full output: ${value.spillPaths[0]}]\n[status: completed, exit code: 0]`,
    )).toBe(true);
  });

  it('a task whose workdir vanished settles failed with the error readable', async () => {
    const session = fakeSession('a');
    const missing = path.join(workdir, 'gone');
    const snapshot = await tools.runtime.start({
      owner: session,
      kind: 'bash',
      label: 'pwd',
      producer: () => executor.start(executor.checkRequest({ command: 'pwd', workdir: missing })),
    });
    const final = await tools.runtime.wait(session, snapshot.id, 60_000);
    expect(final?.status).toBe('failed');
    expect(final?.detail).toMatch(/^error: .*gone/);
  });
});
