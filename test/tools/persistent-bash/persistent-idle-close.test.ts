// Issue 23 item 5: a persistent shell with no call for idleCloseMs is closed
// (its process gone), and the next call says so and runs in a fresh shell.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment, type DshHost } from '../../../src/index.js';
import { resolvePersistentBashConfig } from '../../../src/tools/persistent-bash/persistent-bash-config.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

/** Resolves once `pid` no longer exists (checked each loop turn; bounded by the test's timeout). */
async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('persistent shell idle close', () => {
  let root: string;
  let host: DshHost;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-texts-idle-')));
    host = await createHost(...localEnvironment({ workspace: root, shell: 'persistent', persistent: { idleCloseMs: 300 } }));
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('closes a shell idle for idleCloseMs; the next call says so and runs in a fresh shell in the workspace', async () => {
    const session = host.openSession({ cwd: root });
    try {
      const pid = Number(text(await session.call('bash', { command: 'cd /tmp; echo $$' })));
      await gone(pid);
      const next = text(await session.call('bash', { command: 'pwd; echo $$' }));
      const [notice, cwd, newPid] = next.split('\n');
      expect(notice).toBe('[shell reset: the previous shell was closed after 300ms without a call; this call ran in a fresh shell in the workspace]');
      expect(cwd).toBe(root);
      expect(Number(newPid)).not.toBe(pid);
      expect(text(await session.call('bash', { command: 'echo again' }))).toBe('again');
    } finally {
      await session.dispose();
    }
  });

  it('keeps a shell whose calls come more often than idleCloseMs, and never closes one that is running a command', async () => {
    const session = host.openSession({ cwd: root });
    try {
      const pid = text(await session.call('bash', { command: 'echo $$' }));
      // The command outlives idleCloseMs twice over; its shell is not idle.
      expect(text(await session.call('bash', { command: 'sleep 0.7; echo $$' }))).toBe(pid);
      expect(text(await session.call('bash', { command: 'echo $$' }))).toBe(pid);
    } finally {
      await session.dispose();
    }
  });

  it('takes 0 for never and refuses a negative or fractional idleCloseMs', () => {
    expect(resolvePersistentBashConfig({}).idleCloseMs).toBe(600_000);
    expect(resolvePersistentBashConfig({ idleCloseMs: 0 }).idleCloseMs).toBe(0);
    expect(() => resolvePersistentBashConfig({ idleCloseMs: -1 })).toThrow(
      'invalid persistent bash config idleCloseMs: expected 0 (never) or milliseconds up to',
    );
    expect(() => resolvePersistentBashConfig({ idleCloseMs: 1.5 })).toThrow('got 1.5');
  });
});
