// Shared sessions' background tasks (docs/shared-sessions.md#tasks) on the real engine: two hosts in one
// process stand for two replicas over the same engine and session id. A task started on one keeps running
// when that one goes away, and the other lists, reads, waits for and kills it by the same id.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, containerEnvironment, type DshHost, type HostSession } from '../../../src/index.js';
import { SessionContainersToken } from '../../../src/providers/exec/engine/session-containers.js';
import { TaskRuntime } from '../../../src/providers/tasks/task-runtime.js';
import { SharedTaskRuntime } from '../../../src/providers/tasks/shared-task-runtime.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../../support/container-engine.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describeWithEngine(`shared sessions' background tasks${NEEDS_ENGINE}`, () => {
  let root: string;
  const unique = Date.now().toString(36);
  const hosts: DshHost[] = [];
  const replica = async (): Promise<DshHost> => {
    const host = await createHost(...containerEnvironment({ workspace: root, sharedSessions: true, container: { image: TEST_IMAGE, channel: true }, executor: { graceMs: 300 } }));
    hosts.push(host);
    return host;
  };
  const call = async (session: HostSession, tool: string, args: Record<string, unknown>) => text(await session.call(tool, args));
  const background = (session: HostSession, command: string) => call(session, 'bash', { command, description: 'Count', run_in_background: true });

  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-st-ws-')));
  });
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.dispose()));
    rmSync(root, { recursive: true, force: true });
  });

  it('binds the shared runtime only with shared sessions', async () => {
    const a = await replica();
    expect(a.get(TaskRuntime)).toBeInstanceOf(SharedTaskRuntime);
    const plain = await createHost(...containerEnvironment({ workspace: root, container: { image: TEST_IMAGE } }));
    try {
      expect(plain.get(TaskRuntime)).not.toBeInstanceOf(SharedTaskRuntime);
    } finally {
      await plain.dispose();
    }
  });

  it('a task outlives the replica that started it; another reads all of it in order, with its exit status', async () => {
    const id = `st-move-${unique}`;
    const a = await replica();
    const b = await replica();
    const onA = a.openSession({ id, cwd: root });
    const onB = b.openSession({ id, cwd: root });
    try {
      expect(await background(onA, 'for i in $(seq 1 30); do echo line $i; sleep 0.1; done; echo oops >&2; exit 3')).toBe('started background task bash-1');
      // A goes away while the task runs: its session and its whole host.
      await onA.dispose();
      await a.dispose();
      expect(await call(onB, 'task_list', {})).toBe('bash-1 [bash] running — Count');
      const waited = await call(onB, 'task_output', { task_id: 'bash-1', wait: true, timeout_ms: 30_000 });
      const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
      expect(waited).toBe(`${lines}\n[stderr]\noops\n[status: failed, exit code: 3]`);
      expect(await call(onB, 'task_output', { task_id: 'bash-1' })).toBe('(no new output)\n[status: failed, exit code: 3]');
      // Ids go on from the session's, whichever replica starts the next one.
      expect(await background(onB, 'echo two')).toBe('started background task bash-2');
      expect(await call(onB, 'task_output', { task_id: 'bash-2', wait: true })).toBe('two\n[status: completed, exit code: 0]');
    } finally {
      await onB.dispose();
      await b.get(SessionContainersToken).end(id);
    }
  }, 90_000);

  it('reads consume across replicas, and a task started on one is killed from the other', async () => {
    const id = `st-kill-${unique}`;
    const a = await replica();
    const b = await replica();
    const onA = a.openSession({ id, cwd: root });
    const onB = b.openSession({ id, cwd: root });
    try {
      expect(await background(onA, 'echo first; trap "" TERM; exec sleep 60')).toBe('started background task bash-1');
      for (let i = 0; i < 100 && !(await call(onA, 'task_output', { task_id: 'bash-1' })).startsWith('first'); i++) await new Promise((r) => setTimeout(r, 100));
      // A read that consumed `first` on A leaves nothing new for B.
      expect(await call(onB, 'task_output', { task_id: 'bash-1' })).toBe('(no new output)\n[status: running]');
      expect(await call(onB, 'task_kill', { task_id: 'bash-1' })).toBe('requested cancellation of task bash-1');
      expect(await call(onA, 'task_output', { task_id: 'bash-1', wait: true, timeout_ms: 20_000 })).toBe('(no new output)\n[status: killed, signal: SIGKILL]');
      expect(await call(onB, 'task_kill', { task_id: 'bash-1' })).toBe('task bash-1 had already finished [status: killed, signal: SIGKILL]');
      expect(await call(onA, 'task_output', { task_id: 'bash-9' })).toBe('Error: no background task "bash-9" in this session; task_list shows your tasks');
    } finally {
      await Promise.all([onA.dispose(), onB.dispose()]);
      await b.get(SessionContainersToken).end(id);
    }
  }, 90_000);

  it("a plugin's own process is relayed into the records by its replica, read and killed from the other", async () => {
    const id = `st-relay-${unique}`;
    const a = await replica();
    const b = await replica();
    const onA = a.openSession({ id, cwd: root });
    const onB = b.openSession({ id, cwd: root });
    let finish!: (outcome: { exitCode: number | null; signal: string | null }) => void;
    const chunks = ['one\n', 'two\n'];
    const process = {
      readOutput: () => ({ text: chunks.shift() ?? '', lost: false, spillPaths: [] }),
      kill: async () => {
        finish({ exitCode: null, signal: 'SIGTERM' });
        return true;
      },
      done: new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => (finish = resolve)),
    };
    try {
      const started = await a.get(TaskRuntime).start({ owner: onA, kind: 'plugin', label: 'Relayed', producer: async () => process });
      expect(started.id).toBe('plugin-1');
      expect(await call(onB, 'task_list', {})).toBe('plugin-1 [plugin] running — Relayed');
      expect(await call(onB, 'task_kill', { task_id: 'plugin-1' })).toBe('requested cancellation of task plugin-1');
      expect(await call(onB, 'task_output', { task_id: 'plugin-1', wait: true, timeout_ms: 10_000 })).toBe('one\ntwo\n[status: killed, signal: SIGTERM]');
    } finally {
      await Promise.all([onA.dispose(), onB.dispose()]);
      await b.get(SessionContainersToken).end(id);
    }
  }, 60_000);

  it('a workdir the command cannot enter fails the task with the reason as its output, once', async () => {
    const id = `st-workdir-${unique}`;
    const a = await replica();
    const onA = a.openSession({ id, cwd: root });
    try {
      expect(await call(onA, 'bash', { command: 'true', workdir: '/nonexistent-dir', description: 'Nowhere', run_in_background: true })).toBe('started background task bash-1');
      expect(await call(onA, 'task_output', { task_id: 'bash-1', wait: true })).toBe('workdir does not exist: /nonexistent-dir\n[status: failed, error: workdir does not exist: /nonexistent-dir]');
      expect(await call(onA, 'task_output', { task_id: 'bash-1' })).toBe('(no new output)\n[status: failed, error: workdir does not exist: /nonexistent-dir]');
    } finally {
      await onA.dispose();
      await a.get(SessionContainersToken).end(id);
    }
  }, 60_000);

  it('another session sees none of them', async () => {
    const id = `st-own-${unique}`;
    const a = await replica();
    const mine = a.openSession({ id, cwd: root });
    const other = a.openSession({ id: `${id}-other`, cwd: root });
    try {
      expect(await background(mine, 'echo hi')).toBe('started background task bash-1');
      expect(await call(other, 'task_list', {})).toBe('(no background tasks)');
      await expect(other.call('task_output', { task_id: 'bash-1' })).resolves.toMatchObject({ isError: true });
    } finally {
      await Promise.all([mine.dispose(), other.dispose()]);
      await a.get(SessionContainersToken).end(id);
      await a.get(SessionContainersToken).end(`${id}-other`);
    }
  }, 60_000);
});
