// Pre-started one-shot shells (src/providers/exec/shell/prestarted-shell.ts): a
// command run in a shell started ahead must see what a plain spawn gives it,
// except for the differences listed in docs/performance.md (each tested in
// prestart-differences.test.ts), and no pre-started shell may outlive its
// idle time, its session or its executor.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SessionContext } from '../../../../src/core/tool-contract.js';
import type { LocalShellExecutor } from '../../../../src/providers/backends/local/local-shell-executor.js';
import type { ExecRequest, RunResult } from '../../../../src/providers/exec/shell/shell-executor.js';
import { isAlivePid } from '../../../support/process-table.js';
import { ExecutorPool, pollUntil, runCommand } from '../../../support/shell-test-kit.js';

const pool = new ExecutorPool();
afterEach(() => pool.disposeAll());

/** Waits until `executor` holds a pre-started shell for the next call; returns its pid. */
async function waitingShell(executor: LocalShellExecutor): Promise<number> {
  expect(await pollUntil(() => executor.prestartedPids.length === 1)).toBe(true);
  return executor.prestartedPids[0]!;
}

/** What must match between the two paths: pipe/socket inode numbers and pids differ by nature. */
function comparable(result: RunResult): object {
  const plain = (text: string) => text.replace(/(pipe|socket):\[\d+\]/g, '$1:[n]').replace(/\/proc\/\d+\//g, '/proc/N/')
      .replace(/DSH_PROCESS_TAG=\S+/g, 'DSH_PROCESS_TAG=<tag>');
  return {
    stdout: plain(result.stdout),
    stderr: plain(result.stderr),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    aborted: result.aborted,
    stdoutTruncated: result.stdoutTruncated,
    leftoversKilled: result.leftoversKilled,
  };
}

function fakeSession(id: string): SessionContext & { dispose(): Promise<void> } {
  const hooks: Array<() => void | Promise<void>> = [];
  const session = {
    id,
    disposed: false,
    onDispose: (hook: () => void | Promise<void>) => void hooks.push(hook),
    notify: () => undefined,
    withdraw: () => undefined,
    dispose: async () => {
      session.disposed = true;
      for (const hook of hooks) await hook();
    },
  };
  return session;
}

describe('a pre-started shell runs a command as a plain spawn does', () => {
  const cases: Array<[string, ExecRequest]> = [
    ['exit code', { command: 'exit 3' }],
    ['`exit` in a subshell and after output', { command: '(exit 4); echo $?; echo out; exit 5' }],
    ['a signal', { command: 'kill -TERM $$' }],
    ['$0, $#, $- and BASH_EXECUTION_STRING', { command: 'echo "$0" $# $-; echo "$BASH_EXECUTION_STRING"' }],
    ['$$ is the pid, the process group and the session leader', { command: 'read -ra s </proc/$$/stat; echo $(( s[4] == $$ )) $(( s[5] == $$ )) $(( $$ == BASHPID ))' }],
    ['set -e', { command: 'set -e; false; echo not reached' }],
    ['$LINENO over several lines and in a function', { command: 'echo $LINENO\n\necho $LINENO; f() { echo $LINENO; }\nf' }],
    ['traps', { command: 'trap "echo bye" EXIT; trap "echo usr1" USR1; kill -USR1 $$; echo hi' }],
    ['the environment', { command: 'env | sort', dshEnv: { DSH_SESSION: 'a b' }, env: { LANG_TEST: 'é\n"x' } }],
    ['the environment a program starts with', { command: 'cat /proc/self/environ | tr "\\0" "\\n" | grep -v ^DSH_PROCESS_TAG= | sort' }],
    ['PWD kept when it names the workdir through a symlink', { command: 'echo "$PWD"; env | grep ^PWD=', workdir: '/usr/bin', env: { PWD: '/bin' } }],
    ['PWD that names another directory, OLDPWD that is none', { command: 'declare -p PWD OLDPWD; env | grep PWD', env: { PWD: '/usr', OLDPWD: '/nonexistent' } }],
    ['OLDPWD that is a directory', { command: 'declare -p OLDPWD; env | grep PWD; cd -', env: { OLDPWD: '/usr' } }],
    ['SHLVL from the environment', { command: 'echo $SHLVL; env | grep SHLVL', env: { SHLVL: '4' } }],
    ['SECONDS, $?, $! and the hash table', { command: 'echo $SECONDS "$?" "[$!]"; hash' }],
    ['a later `exit` and the EXIT trap', { command: 'trap "echo trapped \\$?" EXIT; echo a; exit 7; echo b' }],
    ['$_, SHLVL, PWD and OLDPWD, also after cd', { command: 'echo "$_" $SHLVL "$PWD" "$OLDPWD"; cd /; env | grep PWD' }],
    ['no launcher state: variables and functions', { command: 'declare -p | grep -c __dsh; declare -F | wc -l; shopt | grep -c on' }],
    ['cwd', { command: 'pwd; /bin/pwd', workdir: os.tmpdir() }],
    ['stdin is /dev/null', { command: 'cat; ls -l /proc/self/fd/0 | sed "s/.*-> //"' }],
    ['stdin data', { command: 'cat; echo; wc -c', stdin: 'hello\nworld' }],
    ['open fds', { command: 'ls -l /proc/self/fd | sed "1d; s/.* \\([0-9]*\\) -> /\\1 -> /"' }],
    ['a timeout', { command: 'echo started; sleep 5', timeoutMs: 300 }],
    ['leftovers', { command: 'sleep 30 & until [ "$(</proc/$!/comm)" = sleep ]; do :; done; echo bg' }],
    // Waits until the escapee runs `sleep` (after its setsid): a count taken mid-exec would differ by timing alone.
    ['a leftover that left its process group', { command: 'setsid sleep 30 >/dev/null 2>&1 & until [ "$(</proc/$!/comm)" = sleep ]; do :; done; echo bg' }],
  ];

  it.each(cases)('%s', async (_name, request) => {
    const plain = pool.make({ prestart: false, graceMs: 100 });
    const prestarted = pool.make({ graceMs: 100 });
    const expected = await runCommand(plain, request);
    await runCommand(prestarted, 'true');
    const pid = await waitingShell(prestarted);
    const actual = await runCommand(prestarted, request);
    expect(prestarted.prestartedRuns).toBe(1);
    expect(isAlivePid(pid)).toBe(false);
    expect(comparable(actual)).toEqual(comparable(expected));
    expect(plain.prestartedRuns).toBe(0);
  });

  it('applies a workdir and DSH_* overlay that changed since the shell was started', async () => {
    const executor = pool.make();
    await runCommand(executor, { command: 'true', dshEnv: { DSH_STEP: 'one' } });
    await waitingShell(executor);
    const result = await runCommand(executor, { command: 'echo "$DSH_STEP"; pwd', dshEnv: { DSH_STEP: 'two' }, workdir: '/usr' });
    expect(result.stdout).toBe('two\n/usr\n');
    expect(executor.prestartedRuns).toBe(1);
  });

  it('gives each call a fresh process tag', async () => {
    const executor = pool.make();
    const first = await runCommand(executor, 'echo "$DSH_PROCESS_TAG"');
    await waitingShell(executor);
    const second = await runCommand(executor, 'echo "$DSH_PROCESS_TAG"');
    expect(executor.prestartedRuns).toBe(1);
    expect(second.stdout).toMatch(/^[0-9a-f]+\.[0-9a-f]{16}\n$/);
    expect(second.stdout).not.toBe(first.stdout);
  });

  it('spawns plainly when the env names a variable bash owns, and keeps the waiting shell', async () => {
    const executor = pool.make();
    await runCommand(executor, 'true');
    const pid = await waitingShell(executor);
    const result = await runCommand(executor, { command: 'echo "$SHELLOPTS"', env: { 'NOT-AN-IDENTIFIER': '1' } });
    expect(result.exitCode).toBe(0);
    expect(executor.prestartedRuns).toBe(0);
    expect(await pollUntil(() => executor.prestartedPids[0] === pid)).toBe(true);
  });

  it('aborts a command running in a pre-started shell', async () => {
    const executor = pool.make({ graceMs: 100 });
    await runCommand(executor, 'true');
    await waitingShell(executor);
    const controller = new AbortController();
    const running = runCommand(executor, 'echo started; sleep 5', { signal: controller.signal, onProgress: () => controller.abort() });
    const result = await running;
    expect(result).toMatchObject({ aborted: true, stdout: 'started\n' });
    expect(executor.prestartedRuns).toBe(1);
  });
});

describe('calls made together', () => {
  it('start no shell while any of them runs, and one once the last has ended', async () => {
    const executor = pool.make();
    const session = fakeSession('burst');
    const started: number[][] = [];
    const burst = ['sleep 0.2', 'sleep 0.4', 'sleep 0.6'].map((command, i) =>
      runCommand(executor, { command, session }).then(() => {
        started.push(executor.prestartedPids);
        return i;
      }),
    );
    await Promise.all(burst);
    await new Promise((resolve) => setImmediate(resolve));
    // The second ended well after the first (whose result would have started a shell), while the third still ran.
    expect(started[1]).toEqual([]);
    await waitingShell(executor);
  });

  it("in other sessions start no shell while two or more calls run, and every session's once the burst is over", async () => {
    const executor = pool.make();
    const sessions = ['a', 'b', 'c'].map(fakeSession);
    const seen: number[] = [];
    const burst = ['sleep 0.2', 'sleep 0.5', 'sleep 0.8'].map((command, i) =>
      runCommand(executor, { command, session: sessions[i] }).then(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(executor.prestartedPids.length);
      }),
    );
    await Promise.all(burst);
    // a ended while b and c ran: nothing started. b ended with only c running: a's and b's shells start then.
    expect(seen[0]).toBe(0);
    expect(seen[1]).toBe(2);
    expect(await pollUntil(() => executor.prestartedPids.length === 3)).toBe(true);
    // Each waiting shell is taken by its own session's next call.
    for (const session of sessions) await runCommand(executor, { command: 'true', session });
    expect(executor.prestartedRuns).toBe(3);
  });

  it('a session disposed while its shell waited for the burst gets none', async () => {
    const executor = pool.make();
    const [gone, busy, busier] = ['gone', 'busy', 'busier'].map(fakeSession);
    const running = [runCommand(executor, { command: 'sleep 0.5', session: busy! }), runCommand(executor, { command: 'sleep 0.5', session: busier! })];
    await runCommand(executor, { command: 'true', session: gone! });
    await gone!.dispose();
    await Promise.all(running);
    expect(await pollUntil(() => executor.prestartedPids.length === 2)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(executor.prestartedPids).toHaveLength(2);
  });
});

describe('no pre-started shell outlives', () => {
  it('its idle time', async () => {
    const executor = pool.make({ prestartIdleMs: 200 });
    await runCommand(executor, 'true');
    const pid = await waitingShell(executor);
    expect(await pollUntil(() => !isAlivePid(pid))).toBe(true);
    expect(executor.prestartedPids).toEqual([]);
  });

  it('its session', async () => {
    const executor = pool.make();
    const session = fakeSession('s1');
    const other = fakeSession('s2');
    await runCommand(executor, { command: 'true', session });
    await runCommand(executor, { command: 'true', session: other });
    expect(await pollUntil(() => executor.prestartedPids.length === 2)).toBe(true);
    const [mine, theirs] = executor.prestartedPids;
    await session.dispose();
    expect(await pollUntil(() => !isAlivePid(mine!))).toBe(true);
    expect(isAlivePid(theirs!)).toBe(true);
    // A call finishing after its session was disposed starts no new one.
    await runCommand(executor, { command: 'true', session });
    await new Promise((resolve) => setImmediate(resolve));
    expect(executor.prestartedPids).toEqual([theirs]);
  });

  it('its executor', async () => {
    const executor = pool.make();
    await runCommand(executor, 'true');
    const pid = await waitingShell(executor);
    await executor.dispose();
    expect(await pollUntil(() => !isAlivePid(pid))).toBe(true);
  });

  it('a config that turns it off: no shell is started', async () => {
    const executor = pool.make({ prestart: false });
    await runCommand(executor, 'true');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(executor.prestartedPids).toEqual([]);
  });
});

describe('config', () => {
  it.each([
    [{ prestart: 'yes' }, 'invalid executor config: prestart must be true or false, got "yes"'],
    [{ prestartIdleMs: 0 }, 'invalid executor config: prestartIdleMs must be a positive integer of at most 2147483647, got 0'],
  ])('rejects %p', (config, message) => {
    expect(() => pool.make(config as never)).toThrow(message);
  });
});

describe('a deleted workdir', () => {
  it('fails as a plain spawn does', async () => {
    const executor = pool.make();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-prestart-'));
    await runCommand(executor, { command: 'true', workdir: dir });
    await waitingShell(executor);
    rmSync(dir, { recursive: true });
    await expect(runCommand(executor, { command: 'true', workdir: dir })).rejects.toThrow(`workdir does not exist: ${dir}`);
  });
});
