// The persistent shell's idle close embedded (no MCP server): a shell with no
// call for idleCloseMs is closed (its process gone), the session is told with
// the one idle notice (the same text a served session's next result carries),
// and the next call runs in a fresh shell in the workspace.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment, type DshHost } from '../../../src/index.js';
import { resolvePersistentBashConfig } from '../../../src/tools/persistent-bash/persistent-bash-config.js';
import { idleClosedNotice } from '../../../src/tools/persistent-bash/shell-idle-close.js';
import { reportSessionActivity } from '../../../src/core/session-activity.js';

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

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('persistent shell idle close (embedded)', () => {
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

  it('closes a shell idle for idleCloseMs and tells the session once; the next call runs in a fresh shell in the workspace', async () => {
    const session = host.openSession({ cwd: root });
    try {
      const pid = Number(text(await session.call('bash', { command: 'cd /tmp; echo $$' })));
      await gone(pid);
      expect(session.takeNotices()).toEqual([idleClosedNotice(300)]);
      expect(idleClosedNotice(300)).toBe(
        '[session idle: its shell was closed after 0.3 s without a request (persistent.idleCloseMs); cwd, variables and jobs of that shell are gone, the next command starts a fresh shell in the workspace; background tasks and their output are kept]',
      );
      const [cwd, newPid] = text(await session.call('bash', { command: 'pwd; echo $$' })).split('\n');
      expect(cwd).toBe(root);
      expect(Number(newPid)).not.toBe(pid);
      expect(text(await session.call('bash', { command: 'echo again' }))).toBe('again');
      expect(session.takeNotices()).toEqual([]);
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

  it('keeps the shell while its host reports the session busy, and closes it an idle interval after that ends', async () => {
    const session = host.openSession({ cwd: root });
    let busy = true;
    let idleSince = 0;
    reportSessionActivity(session, () => (busy ? undefined : performance.now() - idleSince));
    try {
      const pid = Number(text(await session.call('bash', { command: 'echo $$' })));
      // Another session's command outliving idleCloseMs three times over: time passes while this one is reported busy.
      const other = host.openSession({ cwd: root });
      await other.call('bash', { command: 'sleep 0.9' });
      await other.dispose();
      expect(alive(pid)).toBe(true);
      busy = false;
      idleSince = performance.now();
      await gone(pid);
      expect(performance.now() - idleSince).toBeGreaterThanOrEqual(290);
      expect(session.takeNotices()).toEqual([idleClosedNotice(300)]);
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
