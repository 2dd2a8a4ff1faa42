// Issue 9, items 5-7: sockets with the network off, system-root workspaces,
// and a probe that a fake bwrap cannot pass. Each test failed before the fix.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createHost, type DshHost } from '../../src/index.js';
import { sandboxedEnvironment, type SandboxedEnvironmentOptions } from '../../src/plugins/sandboxed.environment.js';
import { tempWorkspace, uniqueName } from '../support/sandbox-test-kit.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../support/bwrap.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

/** A real listening unix socket at `file`, and its closing. */
async function listen(file: string): Promise<() => Promise<void>> {
  rmSync(file, { force: true });
  const server = net.createServer((socket) => socket.on('error', () => undefined).end('pong\n'));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(file, resolve));
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A node one-liner that prints `<path> connected` or `<path> <error code>` for each socket. */
function connectAll(files: string[]): string {
  const script =
    'for (const p of process.argv.slice(1)) require("net").connect(p)' +
    '.on("connect", function () { console.log(p, "connected"); this.destroy(); })' +
    '.on("error", (e) => console.log(p, e.code));';
  return `${JSON.stringify(process.execPath)} -e '${script}' ${files.join(' ')}`;
}

describeWithBwrap(`sandbox boundaries, items 5-7${NEEDS_BWRAP}`, () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const hosts: DshHost[] = [];
  beforeEach(() => {
    ws = tempWorkspace('dsh-boundary-');
  });
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.dispose()));
    ws.remove();
  });

  async function host(options: Partial<SandboxedEnvironmentOptions> = {}): Promise<DshHost> {
    const made = await createHost(...sandboxedEnvironment({ workspace: ws.dir, ...options }));
    hosts.push(made);
    return made;
  }

  describe.each(['oneshot', 'persistent'] as const)('item 5 (sockets with the network off), %s shell', (shell) => {
    const saved = process.env.SSH_AUTH_SOCK;
    const closers: Array<() => Promise<void>> = [];
    const runDir = existsDir('/run') ? '/run' : '/var/run';
    const inRun = path.join(runDir, `${uniqueName('dsh-sock')}.sock`);
    const agentDir = `/var/tmp/${uniqueName('dsh-agent')}`;
    const agent = path.join(agentDir, 'agent.sock');
    beforeEach(async () => {
      mkdirSync(agentDir, { recursive: true });
      closers.push(await listen(inRun), await listen(agent));
      process.env.SSH_AUTH_SOCK = agent;
    });
    afterEach(async () => {
      if (saved === undefined) delete process.env.SSH_AUTH_SOCK;
      else process.env.SSH_AUTH_SOCK = saved;
      await Promise.all(closers.splice(0).map((close) => close()));
      rmSync(agentDir, { recursive: true, force: true });
      rmSync(inRun, { force: true });
    });

    it('no socket outside the sandbox answers and SSH_AUTH_SOCK is gone', async () => {
      const session = (await host({ shell, sandbox: { network: false } })).openSession({ cwd: ws.dir });
      const result = text(await session.call('bash', { command: `${connectAll([inRun, agent])}; echo "agent=\${SSH_AUTH_SOCK-unset}"`, description: 'Try the sockets' }));
      const lines = result.split('\n');
      expect(lines).toContain('agent=unset');
      expect(lines.filter((line) => line.endsWith(' connected'))).toEqual([]);
      expect(lines.filter((line) => line.startsWith('/'))).toHaveLength(2);
    });

    it('with the network on the same sockets still answer (what network: true exposes)', async () => {
      const session = (await host({ shell })).openSession({ cwd: ws.dir });
      const result = text(await session.call('bash', { command: connectAll([inRun, agent]), description: 'Try the sockets' }));
      expect(result.split('\n').sort()).toEqual([`${agent} connected`, `${inRun} connected`].sort());
    });
  });

  describe('item 6 (a system root as the workspace)', () => {
    it.each(['/', '/usr', '/etc', '/home', '/var', '/root', '/proc'])('refuses to compose a confined host on %s', (root) => {
      expect(() => sandboxedEnvironment({ workspace: root, sandbox: { mode: 'workspace-write' } })).toThrow(
        `refusing to confine commands to "${root}": it is a system directory, not a project; choose a project directory as the workspace`,
      );
    });

    it('refuses a confined call whose session cwd is a system root', async () => {
      const session = (await host({ sandbox: { mode: 'workspace-write' } })).openSession({ cwd: '/' });
      const result = await session.call('bash', { command: 'touch /etc/dsh-never', description: 'Write outside' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Error: refusing to confine commands to "\/": it is a system directory/);
    });

    it('a danger-full-access composition is not confined, so any workspace is accepted', () => {
      expect(() => sandboxedEnvironment({ workspace: '/', sandbox: { mode: 'danger-full-access' } })).not.toThrow();
    });
  });

  describe.each(['oneshot', 'persistent'] as const)('item 7 (a fake bwrap passes the probe), %s shell', (shell) => {
    it('/bin/true as bwrap fails closed instead of answering (no output)', async () => {
      const made = await host({ shell, sandbox: { bwrapPath: '/bin/true' } });
      const result = await made.openSession({ cwd: ws.dir }).call('bash', { command: 'echo hi', description: 'Say hi' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Error: sandbox unavailable for read-only mode: \/bin\/true did not confine a trial command/);
    });
  });
});

function existsDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
