import { MAX_ARG_BYTES } from '../../../../src/providers/exec/process/long-command.js';
import { createHost } from '../../../../src/index.js';
import { sandboxedEnvironment } from '../../../../src/plugins/sandboxed.environment.js';
import { describeWithBwrap, NEEDS_BWRAP } from '../../../support/bwrap.js';
import { tempWorkspace } from '../../../support/sandbox-test-kit.js';
import { ExecutorPool, runCommand } from '../../../support/shell-test-kit.js';

/** A command of exactly `bytes` UTF-8 bytes that prints `marker` and its own length check. */
function commandOfBytes(bytes: number, tail = 'echo "$0 $#"; exit 7'): string {
  const head = ': ';
  const body = `\n${tail}`;
  const padding = bytes - Buffer.byteLength(head + body);
  return `${head}${'x'.repeat(padding)}${body}`;
}

describe('LocalShellExecutor: commands longer than one argv string (E2BIG)', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it.each([
    ['the largest single argv string', MAX_ARG_BYTES],
    ['one byte over the kernel limit', MAX_ARG_BYTES + 1],
    ['1 MiB', 1024 * 1024],
  ])('runs a command of %s with bash -c semantics ($0, $#, exit code)', async (_name, bytes) => {
    const command = commandOfBytes(bytes);
    expect(Buffer.byteLength(command)).toBe(bytes);
    const result = await runCommand(pool.make(), command);
    expect(result).toMatchObject({ stdout: 'bash 0\n', stderr: '', exitCode: 7, signal: null });
  });

  it('counts bytes, not characters: a multi-byte command just over the limit runs whole', async () => {
    const text = 'é'.repeat(70_000); // 140,000 bytes in 70,000 characters
    const result = await runCommand(pool.make(), `v='${text}'; echo \${#v}`);
    expect(result).toMatchObject({ stdout: '70000\n', exitCode: 0 });
  });

  it('reports a syntax error in a long command on stderr with exit code 2, running nothing after it', async () => {
    const command = `${commandOfBytes(200_000, 'echo before')}\necho (\necho after`;
    const result = await runCommand(pool.make(), command);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('before\n');
    expect(result.stderr).toContain("syntax error near unexpected token `newline'");
  });

  it('keeps stdin for the command and hands it no extra descriptor', async () => {
    const command = commandOfBytes(300_000, 'cat; [ -e /proc/$$/fd/3 ] && echo fd3 open || echo fd3 closed');
    const result = await runCommand(pool.make(), { command, stdin: 'from stdin\n' });
    expect(result).toMatchObject({ stdout: 'from stdin\nfd3 closed\n', exitCode: 0 });
  });

  it('keeps trailing output of exec redirections like bash -c (the command runs in the same shell)', async () => {
    const result = await runCommand(pool.make(), commandOfBytes(150_000, 'exec 1>&2; echo to-stderr'));
    expect(result).toMatchObject({ stdout: '', stderr: 'to-stderr\n', exitCode: 0 });
  });
});

describeWithBwrap(`a 1 MiB command under the bwrap sandbox${NEEDS_BWRAP}`, () => {
  it('reaches the confined bash on its descriptor too', async () => {
    const ws = tempWorkspace('dsh-long-sandbox-');
    const host = await createHost(...sandboxedEnvironment({ workspace: ws.dir }));
    try {
      const result = await host.openSession({ cwd: ws.dir }).call('bash', { command: commandOfBytes(1024 * 1024), description: 'Long' });
      expect(result.content.map((block) => block.text).join('')).toBe('bash 0\n[exit code: 7]');
    } finally {
      await host.dispose();
      ws.remove();
    }
  });
});
