// Issue 9, items 1-4: escapes reproduced through the host, in both shells.
// Each test is the attack itself; it failed before the fix.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, type DshHost, type HostSession } from '../../src/index.js';
import { sandboxedEnvironment, type SandboxedEnvironmentOptions } from '../../src/plugins/sandboxed.environment.js';
import { tempWorkspace, uniqueName } from '../support/sandbox-test-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const SHELLS = ['oneshot', 'persistent'] as const;

describeWithBwrap(`sandbox escapes, items 1-4${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const hosts: DshHost[] = [];
  const leftovers: string[] = [];
  beforeEach(() => {
    ws = tempWorkspace('dsh-escape-');
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.dispose()));
    for (const file of leftovers.splice(0)) rmSync(file, { recursive: true, force: true });
    ws.remove();
  });

  async function host(options: Partial<SandboxedEnvironmentOptions> = {}, workspace = ws.dir): Promise<DshHost> {
    const made = await createHost(...sandboxedEnvironment({ workspace, executor: { graceMs: 200 }, ...options }));
    hosts.push(made);
    return made;
  }
  const bash = (session: HostSession, command: string) => session.call('bash', { command, description: 'Probe the sandbox' });

  describe.each(SHELLS)('item 1 (root keeps its capabilities), %s shell', (shell) => {
    it('confined commands have no capabilities and no new privileges', async () => {
      const session = (await host({ shell })).openSession({ cwd: ws.dir });
      const status = text(await bash(session, "grep -E '^(CapEff|NoNewPrivs):' /proc/self/status"));
      expect(status.split('\n')).toEqual(['CapEff:\t0000000000000000', 'NoNewPrivs:\t1']);
    });

    it('a remount to read-write fails and is reported as a denial', async () => {
      const outside = `/var/tmp/${uniqueName('dsh-remount')}`;
      leftovers.push(outside);
      const session = (await host({ shell })).openSession({ cwd: ws.dir });
      const result = text(await bash(session, `mount -o remount,bind,rw / && echo x > ${outside}`));
      expect(result).toContain('[sandbox: file access denied under read-only mode]');
      expect(existsSync(outside)).toBe(false);
    });
  });

  describe.each(SHELLS)('item 2 (the workspace is swapped for /), %s shell', (shell) => {
    /** A workspace one level below a parent the test can rename. */
    function nested(): { parent: string; workspace: string } {
      const parent = path.join(ws.dir, 'parent');
      const workspace = path.join(parent, 'ws');
      mkdirSync(workspace, { recursive: true });
      return { parent, workspace };
    }

    it('a command cannot swap its own workspace to widen the next call', async () => {
      const { parent, workspace } = nested();
      const outside = `/usr/local/${uniqueName('dsh-swap')}`;
      leftovers.push(outside);
      const session = (await host({ shell, sandbox: { mode: 'workspace-write' } }, workspace)).openSession({ cwd: workspace });
      await bash(session, `mv ${parent} ${parent}.moved; mkdir ${parent}; ln -s / ${workspace}; exit 0`);
      const next = await bash(session, `touch ${outside}`);
      expect(existsSync(outside)).toBe(false);
      expect(text(next)).toMatch(/^Error: |\[sandbox: file access denied under workspace-write mode\]/m);
    });

    it('a workspace swapped behind the session fails closed with an error, never binds /', async () => {
      const { parent, workspace } = nested();
      const outside = `/usr/local/${uniqueName('dsh-swap')}`;
      leftovers.push(outside);
      const session = (await host({ shell, sandbox: { mode: 'workspace-write' } }, workspace)).openSession({ cwd: workspace });
      expect(text(await bash(session, 'touch before && exit'))).not.toMatch(/^Error/);
      renameSync(parent, `${parent}.moved`);
      mkdirSync(parent);
      symlinkSync('/', workspace);
      const next = await bash(session, `touch ${outside}`);
      expect(existsSync(outside)).toBe(false);
      expect(next.isError).toBe(true);
      expect(text(next)).toMatch(/^Error: the session's workspace changed since it started: /);
    });
  });

  describe.each(SHELLS)('item 3 (the host /tmp is shared), %s shell', (shell) => {
    it('each confined session gets a private /tmp, kept across calls and removed with the session', async () => {
      const name = uniqueName('dsh-private');
      const made = await host({ shell, sandbox: { mode: 'workspace-write' } });
      const a = made.openSession({ cwd: ws.dir });
      const b = made.openSession({ cwd: ws.dir });
      leftovers.push(`/tmp/${name}`);
      expect(text(await bash(a, `echo mine > /tmp/${name} && exit`))).not.toMatch(/^Error/);
      expect(existsSync(`/tmp/${name}`)).toBe(false);
      expect(text(await bash(a, `cat /tmp/${name}`))).toBe('mine');
      expect(text(await bash(b, `cat /tmp/${name} 2>&1; true`))).toContain('No such file or directory');
      const holders = () => readdirSync(os.tmpdir()).filter((dir) => existsSync(path.join(os.tmpdir(), dir, name)));
      expect(holders()).toHaveLength(1);
      await a.dispose();
      expect(holders()).toEqual([]);
    });

    it('a read-only session cannot write the host /tmp either', async () => {
      const name = uniqueName('/tmp/dsh-ro');
      leftovers.push(name);
      const session = (await host({ shell })).openSession({ cwd: ws.dir });
      expect(text(await bash(session, `touch ${name}`))).toContain('[sandbox: file access denied under read-only mode]');
      expect(existsSync(name)).toBe(false);
    });
  });

  it('item 4: a session reads its own spill files but never another session\'s', async () => {
    const made = await host({ executor: { graceMs: 200, maxOutputBytes: 2000 } });
    const a = made.openSession({ cwd: ws.dir });
    const b = made.openSession({ cwd: ws.dir });
    const spilled = text(await bash(a, 'echo SECRET-A; seq 1 2000'));
    const spill = /full output: (\S+)\]/.exec(spilled)?.[1];
    expect(spill).toBeDefined();
    expect(text(await bash(a, `head -n 1 ${spill}`))).toBe('SECRET-A');
    const other = text(await bash(b, `cat ${spill} 2>&1; ls ${path.dirname(path.dirname(spill!))} 2>&1; true`));
    expect(other).not.toContain('SECRET-A');
    expect(other).toContain('No such file or directory');
  });
});
