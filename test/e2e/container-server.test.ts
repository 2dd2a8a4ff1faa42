// `dsh-tools serve --container <image>` end to end: a real MCP client, the built server, the real engine.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LABELS } from '../../src/index.js';
import { NEEDS_ENGINE, TEST_IMAGE, describeWithEngine } from '../support/container-engine.js';
import { engine } from '../support/container-kit.js';
import { ensureBuilt } from '../support/built-server.js';
import { isAlive, processesWith, serverDirs, startStdioServer, textOf, waitUntil } from '../support/mcp-clients.js';

/** Containers created by the server process `pid`. */
const containersOf = async (pid: number) => engine.list([`${LABELS.managed}=1`, `${LABELS.pid}=${pid}`]);

/** A process's cgroup path (Docker names the container in it); empty once it is gone. */
function cgroupOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  } catch {
    return '';
  }
}

/** Polls the engine (it has no "gone" event we can wait on) until `check` holds, or fails after `ms`. */
async function pollEngine(check: () => Promise<boolean>, what: string, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms}ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

describeWithEngine(`serve --container over MCP${NEEDS_ENGINE}`, () => {
  let dirs: ReturnType<typeof serverDirs>;
  beforeAll(() => {
    ensureBuilt();
    dirs = serverDirs();
  }, 180_000);
  afterAll(() => dirs?.cleanup());

  it('serves one-shot bash and tasks in a per-session container and removes it when the client leaves', async () => {
    const server = await startStdioServer({ workspace: dirs.workspace, dshHome: dirs.dshHome, args: ['--container', TEST_IMAGE] });
    try {
      const inside = await server.call('bash', { command: 'pwd; tr "\\0" " " </proc/1/cmdline', description: 'Where am I' });
      expect(textOf(inside)).toMatch(new RegExp(`^${dirs.workspace}\n/sbin/docker-init`));
      const started = await server.call('bash', { command: 'echo from-task', description: 'Task', run_in_background: true });
      const id = /bash-\d+/.exec(textOf(started))![0];
      expect(textOf(await server.call('task_output', { task_id: id, wait: true, timeout_ms: 20_000 }))).toBe(
        'from-task\n[status: completed, exit code: 0]',
      );
      expect(await containersOf(server.pid)).toHaveLength(1);
    } finally {
      await server.close();
    }
    await waitUntil(() => !isAlive(server.pid), 'the server exits');
    expect(await containersOf(server.pid)).toEqual([]);
  }, 60_000);

  it('serves the persistent shell in the container', async () => {
    const server = await startStdioServer({
      workspace: dirs.workspace,
      dshHome: dirs.dshHome,
      args: ['--container', TEST_IMAGE, '--shell', 'persistent'],
    });
    try {
      await server.call('bash', { command: 'cd /tmp && export X=kept', description: 'Change state' });
      expect(textOf(await server.call('bash', { command: 'echo $PWD $X', description: 'Read state' }))).toBe('/tmp kept');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a server killed with SIGKILL leaves no container running within 10 s', async () => {
    const server = await startStdioServer({ workspace: dirs.workspace, dshHome: dirs.dshHome, args: ['--container', TEST_IMAGE] });
    await server.call('bash', { command: 'true', description: 'Create the container' });
    expect(await containersOf(server.pid)).toHaveLength(1);
    process.kill(server.pid, 'SIGKILL');
    await pollEngine(async () => (await containersOf(server.pid)).length === 0, 'the container is gone', 10_000);
    await server.close().catch(() => undefined);
  }, 60_000);

  it('serve removes containers left by dead servers on this machine at start', async () => {
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = await new Promise<number>((resolve) => dead.once('exit', () => resolve(dead.pid!)));
    const orphan = await engine.create({
      image: TEST_IMAGE,
      name: `dsh-orphan-${deadPid}-${Date.now()}`,
      labels: { [LABELS.managed]: '1', [LABELS.hostname]: os.hostname(), [LABELS.pid]: String(deadPid), [LABELS.instance]: 'dead' },
      env: {},
      mounts: [],
      readOnlyRootfs: false,
      capabilities: [],
      noNewPrivileges: true,
    });
    const leftDir = path.join(os.tmpdir(), `dsh-ct-${deadPid}-left`);
    mkdirSync(leftDir, { recursive: true });
    const server = await startStdioServer({ workspace: dirs.workspace, dshHome: dirs.dshHome, args: ['--container', TEST_IMAGE] });
    try {
      await server.client.listTools();
      expect((await containersOf(deadPid)).map((c) => c.id)).not.toContain(orphan.id);
      expect(existsSync(leftDir)).toBe(false);
    } finally {
      await server.close();
      await engine.remove(orphan.id);
    }
  }, 60_000);

  it('--warm-pool 1 starts a container before any session, and the first session runs in it', async () => {
    const server = await startStdioServer({ workspace: dirs.workspace, dshHome: dirs.dshHome, args: ['--container', TEST_IMAGE, '--warm-pool', '1'] });
    try {
      await pollEngine(async () => (await containersOf(server.pid)).length === 1, 'the pooled container runs', 30_000);
      const [pooled] = await containersOf(server.pid);
      // A pooled container is handed out once its channel's holder starts (the pool has it then): its process shows on this host.
      const holderIn = (id: string) => processesWith('dsh-channel').some((pid) => cgroupOf(pid).includes(id));
      await waitUntil(() => holderIn(pooled!.id), 'the pooled container is ready', 30_000);
      const hostname = textOf(await server.call('bash', { command: 'cat /etc/hostname', description: 'Which container' }));
      expect(pooled!.id.slice(0, 12)).toBe(hostname);
    } finally {
      await server.close();
    }
    await waitUntil(() => !isAlive(server.pid), 'the server exits');
    expect(await containersOf(server.pid)).toEqual([]);
  }, 60_000);
});
