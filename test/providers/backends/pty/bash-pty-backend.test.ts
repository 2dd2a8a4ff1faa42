import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BashPtyBackend } from '../../../../src/providers/backends/pty/bash-pty-backend.js';
import type { PtySession, SendResult } from '../../../../src/providers/exec/terminal/terminal-service.js';
import { eventually, processesWith, uniqueSleepArg } from '../../../support/proc-helpers.js';

const backend = new BashPtyBackend();
const opened: PtySession[] = [];
let workspace: string;

async function open(options: { scrollbackChars?: number; dshEnv?: Record<string, string> } = {}): Promise<PtySession> {
  const session = await backend.open({ cwd: workspace, ...options });
  opened.push(session);
  return session;
}

const send = (session: PtySession, command: string, timeoutMs = 20_000): Promise<SendResult> =>
  session.send(command, { timeoutMs });

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'dsh-pty-test-')));
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((session) => session.close()));
});

afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('BashPtyBackend (real PTY)', () => {
  it('keeps cwd, exports and functions across sends', async () => {
    const shell = await open();
    expect(await send(shell, 'pwd')).toMatchObject({ output: `${workspace}\n`, end: { kind: 'completed', exitCode: 0 } });
    await send(shell, 'cd /tmp; export X=1; greet() { echo "hello $1"; }');
    expect((await send(shell, 'pwd; echo "X=$X"; greet you')).output).toBe('/tmp\nX=1\nhello you\n');
  });

  it('runs multi-line commands with heredocs, quotes and ANSI-C strings, and reports $?', async () => {
    const shell = await open();
    const command = [
      "cat <<'EOF'",
      'literal $HOME "dq" \'sq\'',
      'EOF',
      'cat <<EOF',
      'expanded ${#HOME}',
      'EOF',
      "printf '%s|' \"a b\" 'c d' $'e\\tf'",
      'echo',
      '(exit 3)',
    ].join('\n');
    const result = await send(shell, command);
    expect(result.output).toBe(`literal $HOME "dq" 'sq'\nexpanded ${process.env.HOME?.length ?? 0}\na b|c d|e\tf|\n`);
    expect(result.end).toEqual({ kind: 'completed', exitCode: 3 });
  });

  it('keeps a syntax error inside the call and stays usable', async () => {
    const shell = await open();
    const result = await send(shell, 'echo "unterminated');
    expect(result.end).toEqual({ kind: 'completed', exitCode: 2 });
    expect(result.output).toMatch(/unexpected EOF/);
    expect((await send(shell, 'echo ok')).output).toBe('ok\n');
  });

  it('does not end early on output that imitates a marker', async () => {
    const shell = await open();
    const result = await send(
      shell,
      "printf '\\037E%s:0\\037' 0123456789abcdef; printf '\\037Pffffffffffffffff:0\\037'; echo after; exit_code_is=5; (exit 5)",
    );
    expect(result.end).toEqual({ kind: 'completed', exitCode: 5 });
    expect(result.output).toContain('after\n');
  });

  it('survives commands that change PS1, PROMPT_COMMAND and echo', async () => {
    const shell = await open();
    await send(shell, "PS1='prompt> '; PS0='ps0 '; PROMPT_COMMAND='echo from-prompt-command'; stty echo");
    expect((await send(shell, 'echo hi')).output).toBe('hi\n');
    await send(shell, 'PROMPT_COMMAND=()');
    // A line aborted by SIGINT never prints the end marker; the marker prompt reports it.
    const aborted = await send(shell, "python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGINT)'; echo not-reached");
    expect(aborted.end).toEqual({ kind: 'completed', exitCode: 130 });
    expect(aborted.output).not.toContain('not-reached');
    expect((await send(shell, 'echo still')).output).toBe('still\n');
  });

  it('reports an unbound-variable abort under set -u', async () => {
    const shell = await open();
    const result = await send(shell, 'set -u; echo "$nope"; echo not-reached');
    expect(result.end).toEqual({ kind: 'completed', exitCode: 1 });
    expect(result.output).toMatch(/nope: unbound variable/);
  });

  it('hands long commands over as continuation lines', async () => {
    const shell = await open();
    const payload = 'x'.repeat(6000);
    const result = await send(shell, `s='${payload}'\necho "\${#s}"`);
    expect(result.output).toBe('6000\n');
  });

  it('hands a long env overlay over as continuation lines too (a terminal line holds 4095 bytes)', async () => {
    const shell = await open();
    const big = 'v'.repeat(5000);
    const result = await shell.send('echo "${#DSH_BIG}"', { timeoutMs: 20_000, env: { DSH_BIG: big } });
    expect(result).toMatchObject({ output: '5000\n', end: { kind: 'completed', exitCode: 0 } });
    expect((await send(shell, 'echo "${DSH_BIG:0:3}"')).output).toBe('vvv\n');
  });

  it('strips ANSI sequences and normalizes line ends', async () => {
    const shell = await open();
    const result = await send(shell, "printf '\\033[31mred\\033[0m\\r\\n\\033]0;title\\007plain\\n'");
    expect(result.output).toBe('red\nplain\n');
  });

  it('keeps the beginning of long output and counts the rest', async () => {
    const shell = await open({ scrollbackChars: 1000 });
    const result = await send(shell, "head -c 100000 /dev/zero | tr '\\0' a; echo");
    expect(result.output).toBe('a'.repeat(1000));
    expect(result.droppedChars).toBe(99_001);
    expect(result.lostPrefix).toBe(false);
    expect((await send(shell, 'echo next')).output).toBe('next\n');
  });

  it('builds the environment by the shared rules plus the managed overlay and per-send exports', async () => {
    const shell = await open({ dshEnv: { DSH_SESSION_ID: 's-1' } });
    // The marker prompts stay in the shell: children get no PS0/PS1.
    const first = await send(shell, 'echo "$TERM|$PAGER|$DSH_SESSION_ID|$(printenv PS0 PS1)|$GIT_TERMINAL_PROMPT"');
    expect(first.output).toBe('dumb|cat|s-1||0\n');
    const second = await shell.send('echo "${DSH_SESSION_ID-unset}|$DSH_NEW"', {
      timeoutMs: 20_000,
      env: { DSH_SESSION_ID: '', DSH_NEW: "it's new" },
    });
    expect(second.output).toBe("unset|it's new\n");
  });

  it('reports an explicit exit with its code and refuses further sends', async () => {
    const shell = await open();
    const result = await send(shell, 'echo bye; exit 7');
    expect(result.end).toEqual({ kind: 'shell-exited', exitCode: 7, signal: null });
    expect(result.output).toMatch(/^bye\n/);
    expect(shell.alive).toBe(false);
    expect((await send(shell, 'echo again')).end).toEqual({ kind: 'shell-exited', exitCode: 7, signal: null });
  });

  it('reports a shell killed by a signal', async () => {
    const shell = await open();
    const result = await send(shell, 'kill -9 $$');
    expect(result.end).toEqual({ kind: 'shell-exited', exitCode: null, signal: 'SIGKILL' });
  });

  it('kills the jobs a shell left behind when it exits', async () => {
    const arg = uniqueSleepArg();
    const shell = await open();
    await send(shell, `sleep ${arg} & exit 0`);
    expect(await eventually(() => processesWith(arg), (pids) => pids.length === 0)).toEqual([]);
  });

  it('on timeout returns the partial output and leaves no process behind', async () => {
    const arg = uniqueSleepArg();
    const shell = await open();
    const result = await send(shell, `echo started; sleep ${arg} & sleep ${arg}`, 500);
    expect(result.end).toEqual({ kind: 'timeout' });
    expect(result.output).toMatch(/^started\n/);
    expect(shell.alive).toBe(false);
    expect(processesWith(arg)).toEqual([]);
  });

  it('on abort kills the command and leaves no process behind', async () => {
    const arg = uniqueSleepArg();
    const shell = await open();
    const controller = new AbortController();
    const pending = shell.send(`sleep ${arg}`, { timeoutMs: 20_000, signal: controller.signal });
    await eventually(() => processesWith(arg), (pids) => pids.length > 0);
    controller.abort();
    expect((await pending).end).toEqual({ kind: 'aborted' });
    expect(processesWith(arg)).toEqual([]);
  });

  it('close kills background jobs, orphans and foreground commands', async () => {
    const [a, b] = [uniqueSleepArg(), uniqueSleepArg()];
    const shell = await open();
    await send(shell, `sleep ${a} & (sleep ${b} &)`);
    expect(await eventually(() => processesWith(a).length + processesWith(b).length, (n) => n === 2)).toBe(2);
    await shell.close();
    expect([...processesWith(a), ...processesWith(b)]).toEqual([]);
  });

  it('refuses a second send while one runs; close() settles the running send as a dead shell', async () => {
    const arg = uniqueSleepArg();
    const shell = await open();
    const running = shell.send(`sleep ${arg}`, { timeoutMs: 20_000 });
    await eventually(() => processesWith(arg), (pids) => pids.length > 0);
    await expect(send(shell, 'echo no')).rejects.toThrow('a command is already running on this PTY');
    await shell.close();
    expect((await running).end).toEqual({ kind: 'shell-exited', exitCode: null, signal: 'SIGKILL' });
    expect(processesWith(arg)).toEqual([]);
  });

  it('rejects a timeout a timer cannot hold instead of firing it at once, and the shell stays usable', async () => {
    const shell = await open();
    for (const timeoutMs of [Number.NaN, 0, 2 ** 31]) {
      await expect(shell.send('echo x', { timeoutMs })).rejects.toThrow(
        `invalid timeoutMs: expected a positive number of milliseconds up to 2147483647, got ${timeoutMs}`,
      );
    }
    expect((await send(shell, 'echo alive')).output).toBe('alive\n');
  });

  it('a send with an already aborted signal closes the shell without running the command', async () => {
    const shell = await open();
    const controller = new AbortController();
    controller.abort();
    const result = await shell.send('echo never', { timeoutMs: 20_000, signal: controller.signal });
    expect(result).toEqual({ end: { kind: 'aborted' }, output: '', lostPrefix: false });
    expect(shell.alive).toBe(false);
  });

  it('times out a command that was fed input and still runs, and leaves no process behind', async () => {
    const arg = uniqueSleepArg();
    const shell = await open();
    expect((await send(shell, `read x; echo "got $x"; sleep ${arg}`)).end).toEqual({ kind: 'waiting-for-input' });
    const result = await send(shell, 'input', 500);
    expect(result).toMatchObject({ end: { kind: 'timeout' }, continuation: { inputDelivered: true } });
    expect(result.output).toBe('got input\n');
    expect(processesWith(arg)).toEqual([]);
  });

  it('fails startup clearly for a shell that does not run, or never becomes ready, and leaves nothing behind', async () => {
    await expect(new BashPtyBackend({ shellPath: path.join(workspace, 'no-bash') }).open({ cwd: workspace })).rejects.toThrow(
      /^bash exited during startup \(code \d+\); check that ".*no-bash" runs/,
    );
    const arg = uniqueSleepArg();
    const slow = new BashPtyBackend({ startupTimeoutMs: 300 });
    await expect(
      slow.open({ cwd: workspace, wrapArgv: (argv) => ['sh', '-c', `sleep ${arg}; exec "$@"`, 'sh', ...argv] }),
    ).rejects.toThrow('bash did not become ready within 300ms');
    expect(processesWith(arg)).toEqual([]);
  });

  it('fails clearly for a missing working directory', async () => {
    await expect(backend.open({ cwd: path.join(workspace, 'missing') })).rejects.toThrow(
      `working directory does not exist: ${path.join(workspace, 'missing')}`,
    );
  });
});
