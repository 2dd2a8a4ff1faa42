// The programs as a user runs them: the built `dsh-tools` binary.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';
import { bwrapUsable, NEEDS_BWRAP } from '../support/bwrap.js';
import { engineUsable, NEEDS_ENGINE, TEST_IMAGE } from '../support/container-engine.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function dsh(args: string[], cwd = os.tmpdir()): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN_JS, ...args], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('dsh-tools CLI', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('call prints the exact model-visible text and exits 0 for a failing command', async () => {
    const run = await dsh([
      'call',
      'bash',
      '{"command":"echo out; echo err >&2; exit 3","description":"Print and fail"}',
    ]);
    expect(run).toEqual({ code: 0, stdout: 'out\n[stderr]\nerr\n[exit code: 3]\n', stderr: '' });
  });

  it('call --card adds the tool\'s call and result cards on stderr; stdout stays the model-visible text', async () => {
    const run = await dsh([
      'call',
      'bash',
      '{"command":"echo out; exit 3","description":"Print and fail"}',
      '--card',
    ]);
    expect(run).toEqual({ code: 0, stdout: 'out\n[exit code: 3]\n', stderr: '▸ bash — Print and fail\n  $ echo out; exit 3\n◂ exit code 3\n' });
  });

  it('call exits 1 for an error result and for arguments that are not JSON', async () => {
    expect(await dsh(['call', 'bash', '{"command":"ls"}'])).toMatchObject({
      code: 1,
      stdout: 'Error: invalid description: expected a non-empty string\n',
    });
    const bad = await dsh(['call', 'bash', '{oops']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^Error: invalid arguments: not valid JSON/);
  });

  it('call kills a command at its default timeout: a background task would die with the process', async () => {
    const config = path.join(dir, 'short-timeout.yaml');
    writeFileSync(config, 'executor:\n  timeoutMs: 300\n');
    const run = await dsh(['call', 'bash', '{"command":"echo begun; sleep 5","description":"Sleep"}', '--config', config]);
    expect(run).toEqual({ code: 0, stdout: 'begun\n[timed out after 300ms]\n[killed by signal: SIGTERM]\n', stderr: '' });
  });

  it('call runs in --workspace', async () => {
    const run = await dsh(['call', 'bash', '{"command":"pwd","description":"Show the directory"}', '--workspace', dir]);
    expect(run.stdout).toBe(`${dir}\n`);
  });

  it('--shell persistent mounts the persistent bash', async () => {
    const run = await dsh(['--shell', 'persistent', 'call', 'bash', '{"command":"cd /tmp && pwd"}']);
    expect(run).toMatchObject({ code: 0, stdout: '/tmp\n' });
  });

  it('--shell both mounts bash and bash_persistent; prompt lists both and the task tools', async () => {
    const run = await dsh(['--shell', 'both', 'call', 'bash_persistent', '{"command":"cd /tmp && pwd"}']);
    expect(run).toMatchObject({ code: 0, stdout: '/tmp\n' });
    const prompt = JSON.parse((await dsh(['--shell', 'both', 'prompt', '--json'])).stdout) as { tools: { name: string }[] };
    expect(prompt.tools.map((t) => t.name)).toEqual(['bash', 'bash_persistent', 'task_kill', 'task_list', 'task_output']);
  });

  it('prompt --json prints sections and tool schemas', async () => {
    const run = await dsh(['prompt', '--json']);
    expect(run.code).toBe(0);
    const prompt = JSON.parse(run.stdout) as { sections: { name: string }[]; tools: { name: string }[] };
    expect(prompt.sections.map((s) => s.name)).toEqual(['tool:bash', 'tool:tasks']);
    expect(prompt.tools.map((t) => t.name)).toEqual(['bash', 'task_kill', 'task_list', 'task_output']);
  });

  it('doctor prints one line per capability', async () => {
    const run = await dsh(['doctor']);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.map((line) => line.slice(8).split(/\s{2,}/)[0])).toEqual(['bash', 'node-pty', 'bwrap', 'user namespaces', 'container engine']);
    expect(lines[0]).toMatch(/^ok\s+bash\s+GNU bash/);
  });

  it('doctor names an unreachable container engine and a configured image', async () => {
    const file = path.join(dir, 'container.yaml');
    writeFileSync(file, 'container:\n  image: some-image:1\n  host: unix:///nonexistent/docker.sock\n');
    const run = await dsh(['--config', file, 'doctor']);
    expect(run.stdout).toMatch(/^missing container engine\s+container engine unreachable at unix:\/\/\/nonexistent\/docker.sock \(ENOENT\)/m);
    // npm run build compiled the native call helper on this machine (.ci/run installs a C compiler).
    expect(run.stdout).toMatch(new RegExp(`^ok\\s+native call helper\\s+/\\S+/dist/native/dsh-call-${process.arch}$`, 'm'));
  });

  (engineUsable ? it : it.skip)(`--container with --sandbox read-only mounts the workspace read-only${NEEDS_ENGINE}`, async () => {
    const args = { command: 'pwd; touch x', description: 'Try to write' };
    const run = await dsh(['--container', TEST_IMAGE, '--sandbox', 'read-only', '--workspace', dir, 'call', 'bash', JSON.stringify(args)]);
    expect(run.stdout).toMatch(new RegExp(`^${dir}\n\\[stderr\\]\ntouch: cannot touch 'x': Read-only file system\n\\[exit code: 1\\]`));
  });

  it('rejects a bad composition file naming the file, the key and the reason', async () => {
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, 'executor:\n  timeoutMs: -1\n');
    const run = await dsh(['--config', file, 'prompt']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`dsh-tools: ${file}: executor.timeoutMs: expected a positive integer\n`);
  });

  it('applies a composition file', async () => {
    const file = path.join(dir, 'dsh.json');
    writeFileSync(file, JSON.stringify({ shell: 'persistent', env: { deploy: { DSH_DEPLOY_ENV: 'staging' } } }));
    const run = await dsh(['--config', file, 'call', 'bash', '{"command":"echo $DSH_DEPLOY_ENV; export A=1"}']);
    expect(run).toMatchObject({ code: 0, stdout: 'staging\n' });
  });

  (bwrapUsable ? it : it.skip)(`--sandbox read-only confines commands and reports a denial${NEEDS_BWRAP}`, async () => {
    const run = await dsh(['--sandbox', 'read-only', 'call', 'bash', '{"command":"touch x","description":"Create a file"}', '--workspace', dir]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toContain('[sandbox: file access denied under read-only mode]');
    expect(lines.at(-1)).toBe('[exit code: 1]');
  });

  it('serve refuses a workspace that is not a directory instead of serving calls that all fail', async () => {
    const missing = path.join(dir, 'no-such-workspace');
    // stdin closed at once: without the check the server would start and exit 0 at end of input.
    const run = await new Promise<Run>((resolve) => {
      const child = execFile(process.execPath, [MAIN_JS, 'serve', '--workspace', missing], { timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`dsh-tools: the workspace ${missing} is not a directory (check --workspace or the config file)\n`);
    expect(run.stdout).toBe('');
  });

  (bwrapUsable ? it : it.skip)(`item 5: --no-network confines commands with no network${NEEDS_BWRAP}`, async () => {
    const command = 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "';
    const run = await dsh(['--no-network', 'call', 'bash', JSON.stringify({ command, description: 'List interfaces' }), '--workspace', dir]);
    expect(run).toMatchObject({ code: 0, stdout: 'lo\n' });
  });

  it('item 6: serve refuses a confined workspace of / and says how to set --workspace', async () => {
    const run = await new Promise<Run>((resolve) => {
      const child = execFile(process.execPath, [MAIN_JS, '--sandbox', 'workspace-write', 'serve', '--workspace', '/'], { timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'dsh-tools: refusing to confine commands to "/": it is a system directory, not a project; ' +
        'start the server in your project directory or pass --workspace <dir> (config: workspace)\n',
    );
    expect(run.stdout).toBe('');
  });

  it('item 7: doctor probes the configured bwrap and reports a fake one as unable to confine', async () => {
    const file = path.join(dir, 'fake-bwrap.yaml');
    writeFileSync(file, 'sandbox:\n  bwrapPath: /bin/true\n');
    const run = await dsh(['--config', file, 'doctor']);
    const line = run.stdout.split('\n').find((text) => / bwrap /.test(text));
    expect(line).toMatch(/^missing bwrap .* but cannot confine: \/bin\/true did not confine a trial command/);
  });

  it('doctor reports a configured bwrap that does not exist as not found, and still exits 0 (bash is there)', async () => {
    const file = path.join(dir, 'missing-bwrap.yaml');
    writeFileSync(file, 'sandbox:\n  bwrapPath: /nonexistent/bwrap\n');
    const run = await dsh(['--config', file, 'doctor']);
    const line = run.stdout.split('\n').find((text) => / bwrap /.test(text));
    expect(line).toMatch(/^missing bwrap +not found \(install the bubblewrap package\) — disables sandboxed execution/);
    expect(run.stdout).toMatch(/^ok +bash +GNU bash/m);
    expect(run.code).toBe(0);
  });

  it('rejects an unknown --sandbox mode', async () => {
    const run = await dsh(['--sandbox', 'none', 'prompt']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('none');
  });
});
