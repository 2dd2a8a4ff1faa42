import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExecutorPool, runCommand } from '../../../support/shell-test-kit.js';

describe('LocalShellExecutor.run: basics', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('reports the exit code; a non-zero exit is a normal result', async () => {
    const result = await runCommand(pool.make(), 'exit 3');
    expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, aborted: false });
  });

  it('keeps stdout and stderr apart, exactly', async () => {
    const result = await runCommand(pool.make(), 'echo out; echo err >&2; printf more');
    expect(result.stdout).toBe('out\nmore');
    expect(result.stderr).toBe('err\n');
    expect(result).toMatchObject({ exitCode: 0, stdoutTruncated: false, stderrTruncated: false });
    expect(result.stdoutSpillPath).toBeUndefined();
  });

  it('keeps output without a trailing newline as printed', async () => {
    const result = await runCommand(pool.make(), 'printf "no newline"');
    expect(result.stdout).toBe('no newline');
  });

  it('reports the resolved timeout and a duration', async () => {
    const executor = pool.make();
    const result = await runCommand(executor, { command: 'true', timeoutMs: 5000 });
    expect(result.timeoutMs).toBe(5000);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('gives the command /dev/null as stdin by default, and the given data otherwise', async () => {
    const executor = pool.make();
    const closed = await runCommand(executor, 'cat; echo "[$?]"; readlink /proc/self/fd/0');
    expect(closed.stdout).toBe('[0]\n/dev/null\n');
    const fed = await runCommand(executor, { command: 'tr a-z A-Z', stdin: 'hello\nworld' });
    expect(fed.stdout).toBe('HELLO\nWORLD');
  });

  it('runs in the workdir: config cwd by default, relative paths against it', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'shell-cwd-'));
    try {
      fs.mkdirSync(path.join(base, 'sub'));
      const executor = pool.make({ cwd: base });
      expect((await runCommand(executor, 'pwd -P')).stdout).toBe(`${fs.realpathSync(base)}\n`);
      const sub = await runCommand(executor, { command: 'pwd -P', workdir: 'sub' });
      expect(sub.stdout).toBe(`${fs.realpathSync(path.join(base, 'sub'))}\n`);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it('starts a fresh bash each call: no state carries over', async () => {
    const executor = pool.make();
    await runCommand(executor, 'export CARRY=1; cd /');
    const second = await runCommand(executor, 'echo "[${CARRY:-unset}]"');
    expect(second.stdout).toBe('[unset]\n');
  });

  it('uses a non-interactive, non-login shell that reads no rc file, not even $BASH_ENV', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shell-rc-'));
    const rc = path.join(dir, 'rc.sh');
    fs.writeFileSync(rc, 'echo RC-WAS-READ\n');
    try {
      const result = await runCommand(pool.make(), {
        command: 'echo "[$-]"; shopt -q login_shell && echo login; echo "[${BASH_ENV-}|${ENV-}]"',
        env: { BASH_ENV: rc, ENV: rc },
      });
      expect(result.stdout).not.toContain('RC-WAS-READ');
      expect(result.stdout).not.toContain('login');
      expect(result.stdout).not.toMatch(/^\[[^\]]*i[^\]]*\]/);
      expect(result.stdout).toContain('[|]');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs the command as leader of its own session and process group', async () => {
    // /proc/<pid>/stat fields after the command name: state ppid pgrp session ...
    const result = await runCommand(pool.make(), 'echo $$; cut -d")" -f2 /proc/$$/stat');
    const [pid, rest] = result.stdout.trim().split('\n');
    const [, , pgrp, session] = rest!.trim().split(' ');
    expect(pgrp).toBe(pid);
    expect(session).toBe(pid);
  });

  it('has no controlling terminal: reading /dev/tty fails at once', async () => {
    const result = await runCommand(pool.make(), { command: 'read -r line < /dev/tty; echo "rc=$?"', timeoutMs: 20_000 });
    expect(result.timedOut).toBe(false);
    expect(result.stdout).toBe('rc=1\n');
    expect(result.stderr).toMatch(/\/dev\/tty/);
  });

  it('reports exitCode null and the signal when the command kills itself, with neither flag', async () => {
    const result = await runCommand(pool.make(), 'echo before; kill -9 $$');
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false, aborted: false });
    expect(result.stdout).toBe('before\n');
  });
});
