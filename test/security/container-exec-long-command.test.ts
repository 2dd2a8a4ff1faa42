// Row 7 of issue 18: a container one-shot command over 131,071 bytes failed
// with E2BIG ("argument list too long"). It now arrives as data on the exec's
// stdin, ahead of the command's own stdin bytes, which must arrive untouched.
import { MAX_ARG_BYTES } from '../../src/providers/exec/process/long-command.js';
import { NEEDS_ENGINE, describeWithEngine } from '../support/container-engine.js';
import { commandOfBytes, containerExecHost, type ContainerExecHost } from './support/container-exec-host.js';

describeWithEngine(`container exec: commands longer than one argv string${NEEDS_ENGINE}`, () => {
  let ct: ContainerExecHost;
  beforeAll(async () => {
    ct = await containerExecHost('sec-long');
  });
  afterAll(() => ct.dispose());

  it.each([
    ['200 KiB', 200 * 1024],
    ['1 MiB', 1024 * 1024],
    ['one byte over the kernel limit', MAX_ARG_BYTES + 1],
  ])('runs a %s command through the bash tool with bash -c semantics ($0, $#, exit code)', async (_name, bytes) => {
    const command = commandOfBytes(bytes, 'echo "$0 $#"; exit 7');
    expect(Buffer.byteLength(command)).toBe(bytes);
    const result = await ct.call(command);
    expect(result.text).toBe('bash 0\n[exit code: 7]');
  });

  it('runs a 1 MiB command with stdin: the stdin bytes arrive untouched and the command gets no extra descriptor', async () => {
    const stdin = 'line one\n\tline two with é and a trailing space \nno newline';
    const tail = 'cat; echo; for fd in 3 4 5 6; do [ -e /proc/$$/fd/$fd ] && echo "fd $fd open"; done; echo done';
    const result = await ct.run(commandOfBytes(1024 * 1024, tail), stdin);
    expect(result).toMatchObject({ stdout: `${stdin}\ndone\n`, stderr: '', exitCode: 0 });
  });

  it('gives a short command its stdin untouched too, and /dev/null without one', async () => {
    const stdin = 'x'.repeat(200_000);
    expect(await ct.run('wc -c', stdin)).toMatchObject({ stdout: '200000\n', exitCode: 0 });
    expect(await ct.run('wc -c')).toMatchObject({ stdout: '0\n', exitCode: 0 });
    // A command that ignores a large stdin still ends, and its helper is not counted as a leftover.
    expect(await ct.run('true', stdin)).toMatchObject({ stdout: '', stderr: '', exitCode: 0 });
    expect((await ct.run('true', stdin)).leftoversKilled).toBeUndefined();
  });

  it('never counts its own stdin helper as a leftover, even when the command ends before the helper has started', async () => {
    // The helper is killed at the end; one not yet gone may still be a fork carrying the wrapper's tag.
    const stdin = 'x'.repeat(200_000);
    const runs = await Promise.all(Array.from({ length: 12 }, () => ct.run('true', stdin)));
    expect(runs.map((run) => run.leftoversKilled ?? 0)).toEqual(Array(12).fill(0));
  });

  it('counts bytes, not characters: a multi-byte command just over the limit runs whole', async () => {
    const text = 'é'.repeat(70_000); // 140,000 bytes in 70,000 characters (the image has only the C locale)
    expect((await ct.call(`v='${text}'; printf %s "$v" | wc -c; [ "$v" = '${text}' ] && echo same`)).text).toBe('140000\nsame');
  });

  it('reports a syntax error in a long command with exit code 2, running nothing after it', async () => {
    const command = `${commandOfBytes(200_000, 'echo before')}\necho (\necho after`;
    const result = await ct.run(command);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('before\n');
    expect(result.stderr).toContain("syntax error near unexpected token `newline'");
  });

  it('still says why an unusable workdir cannot be used, for a long command', async () => {
    const result = await ct.call(commandOfBytes(300_000, 'echo ran'), { workdir: 'no-such-dir' });
    expect(result).toEqual({ isError: true, text: `Error: workdir does not exist: ${ct.root}/no-such-dir` });
  });
});
