// Issue 9, "what held": the attacks that failed before the fixes must keep failing after them.
import { existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, type DshHost } from '../../src/index.js';
import { sandboxedEnvironment } from '../../src/plugins/sandboxed.environment.js';
import { tempWorkspace, uniqueName } from '../support/sandbox-test-kit.js';
import { uniqueSleep, waitUntilGone } from '../support/process-table.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

describeWithBwrap(`sandbox: what held keeps holding${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let host: DshHost;
  const leftovers: string[] = [];
  afterEach(async () => {
    await host.dispose();
    for (const file of leftovers.splice(0)) rmSync(file, { recursive: true, force: true });
    ws.remove();
  });

  describe.each(['oneshot', 'persistent'] as const)('%s shell under workspace-write', (shell) => {
    beforeEach(async () => {
      ws = tempWorkspace('dsh-held-');
      host = await createHost(
        ...sandboxedEnvironment({ workspace: ws.dir, shell, executor: { graceMs: 200 }, sandbox: { mode: 'workspace-write' } }),
      );
    });

    const name = uniqueName('dsh-held');
    it.each([
      ['$HOME', path.join(os.homedir(), name), `touch ${path.join(os.homedir(), name)}`],
      ['/var/tmp', `/var/tmp/${name}`, `touch /var/tmp/${name}`],
      ['/dev/shm', `/dev/shm/${name}`, `touch /dev/shm/${name}`],
      ['/run', `/run/${name}`, `touch /run/${name}`],
      ['an outward symlink', `/etc/${name}`, `ln -sfn /etc out && touch out/${name}`],
      ['/proc/self/root', `/etc/${name}`, `touch /proc/self/root/etc/${name}`],
    ])('denies a write to %s', async (_label, target, command) => {
      leftovers.push(target);
      const result = text(await host.openSession({ cwd: ws.dir }).call('bash', { command, description: 'Write outside' }));
      expect(result).toContain('[sandbox: file access denied under workspace-write mode]');
      expect(existsSync(target)).toBe(false);
    });

    it('a write to .. never reaches the host directory above the workspace', async () => {
      const target = path.join(path.dirname(ws.dir), uniqueName('dsh-parent'));
      leftovers.push(target);
      await host.openSession({ cwd: ws.dir }).call('bash', { command: `touch ../${path.basename(target)}`, description: 'Write above' });
      expect(existsSync(target)).toBe(false);
    });

    it('refuses a new hard link to a file outside the workspace', async () => {
      const result = text(
        await host.openSession({ cwd: ws.dir }).call('bash', { command: 'ln /etc/hostname hl', description: 'Link a file' }),
      );
      expect(result).toMatch(/Invalid cross-device link|Read-only file system|Operation not permitted/);
      expect(existsSync(path.join(ws.dir, 'hl'))).toBe(false);
    });

    it('leaves no survivor for any escape pattern once the session ends', async () => {
      const sleeps = [uniqueSleep(), uniqueSleep(), uniqueSleep(), uniqueSleep()];
      const [a, b, c, d] = sleeps;
      const session = host.openSession({ cwd: ws.dir });
      const started = await session.call('bash', {
        command:
          `setsid sleep ${a} >/dev/null 2>&1 & nohup sleep ${b} >/dev/null 2>&1 & (sleep ${c} >/dev/null 2>&1 &) ; ` +
          `sleep ${d} >/dev/null 2>&1 & disown; ` +
          // Every escapee is running before the call ends (the witness, not a sleep, orders this).
          `for s in ${sleeps.join(' ')}; do until pgrep -f "sleep $s" >/dev/null; do :; done; done; echo started`,
        description: 'Try to leave processes behind',
      });
      // The PID namespace kills the escapees when the command ends; the reaper may still count those it saw first.
      const lines = text(started).split('\n');
      // The persistent shell prints its job notices first.
      const at = lines.lastIndexOf('started');
      expect(at).toBeGreaterThanOrEqual(0);
      expect(lines.slice(at + 1).every((line) => /^\[killed \d+ leftover process(es)? when the command ended;/.test(line))).toBe(true);
      await session.dispose();
      for (const sleep of sleeps) expect(await waitUntilGone(sleep!)).toEqual([]);
    });
  });
});
