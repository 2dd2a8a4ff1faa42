// Background tasks in a session's container through the unchanged task runtime.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type DshHost, type HostSession } from '../../../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../../support/container-engine.js';
import { containerProcesses } from '../../../support/container-kit.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

/** The id of the task `started` names, once its output says `up` (or shows an error). */
async function taskSaidUp(session: HostSession, started: string): Promise<string> {
  const id = /bash-\d+/.exec(started)![0];
  let seen = '';
  // Poll on the timer queue: a loop of instantly settled calls would starve the I/O that brings the output.
  while (!seen.includes('up') && !seen.includes('Error')) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    seen += text(await session.call('task_output', { task_id: id, wait: false }));
  }
  return id;
}

describeWithEngine(`background tasks in a container${NEEDS_ENGINE}`, () => {
  let host: DshHost;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-ct-tasks-')));
    host = await createHost(...containerEnvironment({ workspace: root, container: { image: TEST_IMAGE }, executor: { graceMs: 300 } }));
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('starts, reads to the end with the status, and reports the finish', async () => {
    const session = host.openSession({ id: 'task-read', cwd: root });
    try {
      const started = await session.call('bash', {
        command: 'echo one; echo two >&2; exit 4',
        description: 'Background work',
        run_in_background: true,
      });
      expect(text(started)).toBe('started background task bash-1');
      const output = await session.call('task_output', { task_id: 'bash-1', wait: true, timeout_ms: 20_000 });
      expect(text(output)).toBe('one\n[stderr]\ntwo\n[status: failed, exit code: 4]');
    } finally {
      await session.dispose();
    }
  });

  it('task_kill stops the whole tree inside the container', async () => {
    const session = host.openSession({ id: 'task-kill', cwd: root });
    try {
      const started = await session.call('bash', {
        command: 'sleep 4646 & sleep 4747 & echo up; wait',
        description: 'Two sleepers',
        run_in_background: true,
      });
      const id = await taskSaidUp(session, text(started));
      expect((await containerProcesses(session.id)).filter((l) => /^\s*\d+ sleep (4646|4747)$/.test(l))).toHaveLength(2);
      const killed = await session.call('task_kill', { task_id: id });
      expect(text(killed)).toBe(`requested cancellation of task ${id}`);
      const final = await session.call('task_output', { task_id: id, wait: true, timeout_ms: 20_000 });
      expect(text(final)).toMatch(/\[status: killed, signal: SIG(TERM|KILL)\]$/);
      expect((await containerProcesses(session.id)).filter((l) => /^\s*\d+ sleep (4646|4747)$/.test(l))).toEqual([]);
    } finally {
      await session.dispose();
    }
  });

  it('task_kill of a command that ignores TERM leaves no survivor (issue 23 item 2)', async () => {
    const session = host.openSession({ id: 'task-kill-trap', cwd: root });
    try {
      const started = await session.call('bash', {
        command: "trap '' TERM; echo up; sleep 4848",
        description: 'A sleeper that ignores TERM',
        run_in_background: true,
      });
      const id = await taskSaidUp(session, text(started));
      expect((await containerProcesses(session.id)).filter((l) => /^\s*\d+ sleep 4848$/.test(l))).toHaveLength(1);
      await session.call('task_kill', { task_id: id });
      const final = await session.call('task_output', { task_id: id, wait: true, timeout_ms: 20_000 });
      expect(text(final)).toMatch(/\[status: killed, signal: SIG(TERM|KILL)\]$/);
      // The kill is done when the task says so: nothing of it may still be running then.
      expect((await containerProcesses(session.id)).filter((l) => /^\s*\d+ sleep 4848$/.test(l))).toEqual([]);
    } finally {
      await session.dispose();
    }
  });
});
