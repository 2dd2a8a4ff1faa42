// What a pre-started one-shot shell gives differently from a fresh `bash -c`
// (the list in docs/performance.md): each difference, exactly, beside the
// plain spawn's result; and the calls it leaves to a plain spawn.
import type { LocalShellExecutor } from '../../../../src/providers/backends/local/local-shell-executor.js';
import type { ExecRequest, RunResult } from '../../../../src/providers/exec/shell/shell-executor.js';
import { ExecutorPool, pollUntil, runCommand } from '../../../support/shell-test-kit.js';

const pool = new ExecutorPool();
afterEach(() => pool.disposeAll());

/** Waits until `executor` holds a pre-started shell for the next call; returns its pid. */
async function waitingShell(executor: LocalShellExecutor): Promise<number> {
  expect(await pollUntil(() => executor.prestartedPids.length === 1)).toBe(true);
  return executor.prestartedPids[0]!;
}

describe('what a pre-started shell gives differently (docs/performance.md)', () => {
  /** Runs `request` on a plain executor and on a pre-started shell; returns both results. */
  async function both(request: ExecRequest): Promise<{ plain: RunResult; prestarted: RunResult; executor: LocalShellExecutor }> {
    const plainExecutor = pool.make({ prestart: false, graceMs: 100 });
    const executor = pool.make({ graceMs: 100 });
    const plain = await runCommand(plainExecutor, request);
    await runCommand(executor, 'true');
    await waitingShell(executor);
    const prestarted = await runCommand(executor, request);
    return { plain, prestarted, executor };
  }

  it('a syntax error names `eval` instead of `-c`, with the same line, output before it and exit code', async () => {
    const { plain, prestarted, executor } = await both({ command: 'echo before\nif then fi\necho after' });
    expect(executor.prestartedRuns).toBe(1);
    expect(plain.stderr).toMatch(/^\S*bash: -c: line 2: syntax error/);
    expect(prestarted.stdout).toBe('before\n');
    expect(plain.stdout).toBe('before\n');
    expect(prestarted.stderr).toBe(plain.stderr.replaceAll('-c: line', 'eval: line'));
    expect(prestarted.exitCode).toBe(2);
    expect(plain.exitCode).toBe(2);
  });

  it("the command's last program runs as the shell's child instead of replacing it", async () => {
    const { plain, prestarted, executor } = await both({ command: "sh -c 'cat /proc/$PPID/comm'" });
    expect(executor.prestartedRuns).toBe(1);
    expect(prestarted.stdout).toBe('bash\n');
    expect(plain.stdout).not.toBe('bash\n');
  });

  it('so a program killed by a signal is reported as exit code 128 + N, not as the signal', async () => {
    const { plain, prestarted, executor } = await both({ command: "sh -c 'kill -KILL $$'" });
    expect(executor.prestartedRuns).toBe(1);
    expect(plain).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    expect(prestarted).toMatchObject({ exitCode: 137, signal: null });
  });

  it("/proc/$$/environ and cmdline are the waiting shell's: its own tag, not the call's environment, and its script", async () => {
    const { plain, prestarted, executor } = await both({ command: 'tr "\\0" "\\n" </proc/$$/environ; tr "\\0" " " </proc/$$/cmdline' });
    expect(executor.prestartedRuns).toBe(1);
    expect(plain.stdout).toContain('TERM=dumb\n');
    expect(prestarted.stdout).not.toContain('TERM=dumb');
    expect(prestarted.stdout).toMatch(/^DSH_PROCESS_TAG=[0-9a-f]+\.p\d+$/m);
    expect(prestarted.stdout).toContain('bash -c : dsh-launcher;');
  });

  it('a long command (over 128 KiB) is spawned plainly, and the waiting shell stays for the next call', async () => {
    const command = `echo ${'x'.repeat(140_000)} | wc -c; echo "$0" $#`;
    const executor = pool.make();
    await runCommand(executor, 'true');
    const pid = await waitingShell(executor);
    const result = await runCommand(executor, command);
    expect(result.stdout).toBe('140001\nbash 0\n');
    expect(executor.prestartedRuns).toBe(0);
    expect(await pollUntil(() => executor.prestartedPids[0] === pid)).toBe(true);
  });

  it.each([['IFS'], ['OPTIND'], ['OPTERR'], ['PS4']])('an environment that sets %s (bash resets it at start-up) is spawned plainly', async (name) => {
    const { plain, prestarted, executor } = await both({ command: `declare -p ${name}`, env: { [name]: '7' } });
    expect(executor.prestartedRuns).toBe(0);
    expect(prestarted.stdout).toBe(plain.stdout);
  });
});
