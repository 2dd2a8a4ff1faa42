// A caller that forges a session (an object carrying the victim's id, or a
// new session reusing a closed one's id) reaches none of the victim's
// state: tasks and shells are found by the session object, not by its id,
// and every answer is the one an unknown id gets.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { DshHost } from '../../src/container/dsh-host.js';
import { TaskRuntime, TerminalService } from '../../src/index.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { fakeSession } from '../support/fake-session.js';

let dir: string;
let host: DshHost;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-scope-forged-'));
  host = await createHost(...localEnvironment({ workspace: dir, shell: 'both' }));
});

afterAll(async () => {
  await host.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function taskIdOf(text: string): string {
  const match = /^started background task (\S+)/.exec(text);
  if (!match) throw new Error(`no task started: ${text}`);
  return match[1]!;
}

describe('a forged session with the victim’s id', () => {
  it('cannot see, read, wait on or kill the victim’s task, nor use or close its shell', async () => {
    const victim = host.openSession({ id: 'victim', cwd: dir });
    try {
      const started = await victim.call('bash', { command: 'sleep 30', description: 'Wait', run_in_background: true });
      const taskId = taskIdOf(started.content[0]!.text);
      const tasks = host.get(TaskRuntime);
      const terminals = host.get(TerminalService);
      const ptyId = await terminals.open(victim, 'shell', { cwd: dir });
      const forged = fakeSession('victim');

      expect(tasks.get(forged, taskId)).toBeUndefined();
      expect(tasks.list(forged)).toEqual([]);
      expect(tasks.read(forged, taskId)).toBeUndefined();
      expect(await tasks.wait(forged, taskId, 10)).toBeUndefined();
      expect(await tasks.kill(forged, taskId)).toBeUndefined();
      expect(() => tasks.preflight(forged)).not.toThrow();
      expect(terminals.isAlive(forged, ptyId)).toBe(false);
      await expect(terminals.send(forged, ptyId, 'echo crossed', { timeoutMs: 5_000 })).rejects.toThrow(`unknown terminal session "${ptyId}"`);
      await expect(terminals.close(forged, ptyId)).rejects.toThrow(`unknown terminal session "${ptyId}"`);
      // Closing the forged session stops nothing of the victim's.
      await forged.dispose();

      expect(tasks.get(victim, taskId)?.status).toBe('running');
      expect(terminals.isAlive(victim, ptyId)).toBe(true);
      expect((await terminals.send(victim, ptyId, 'echo still mine', { timeoutMs: 10_000 })).output).toBe('still mine\n');
    } finally {
      await victim.dispose();
    }
  });

  it('a session reopening a closed session’s id finds none of its tasks: task_output answers as for an unknown id', async () => {
    const first = host.openSession({ id: 'reused', cwd: dir });
    const started = await first.call('bash', { command: 'echo secret', description: 'Print', run_in_background: true });
    const taskId = taskIdOf(started.content[0]!.text);
    await first.dispose();
    const second = host.openSession({ id: 'reused', cwd: dir });
    try {
      const foreign = await second.call('task_output', { task_id: taskId });
      const unknown = await second.call('task_output', { task_id: 'bash-99999' });
      expect(foreign.content[0]!.text).toBe(unknown.content[0]!.text.replaceAll('bash-99999', taskId));
      expect(foreign.content[0]!.text).not.toContain('secret');
      expect(host.get(TaskRuntime).list(second)).toEqual([]);
    } finally {
      await second.dispose();
    }
  });
});
