import { bareSpawn, type BareChild, type SpawnFailure } from '../../../../src/providers/exec/process/bare-spawn.js';

/** Everything the child wrote to stdout, and how it ended. */
async function outcome(child: BareChild): Promise<{ stdout: string; code: number | null; signal: string | null }> {
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.resume();
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
  await new Promise((resolve) => (child.stdout.readableEnded ? resolve(undefined) : child.stdout.once('close', resolve)));
  return { stdout: Buffer.concat(chunks).toString(), code, signal };
}

const cwd = process.cwd();

describe('bareSpawn: the one-shot spawn without execa', () => {
  it('leads a session and process group of its own', async () => {
    const child = bareSpawn('bash', ['-c', 'cat /proc/$$/stat'], { cwd, env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    const { stdout, code } = await outcome(child);
    const fields = stdout.slice(stdout.lastIndexOf(')') + 2).split(' ');
    expect(code).toBe(0);
    expect(Number(fields[2])).toBe(child.pid); // pgrp
    expect(Number(fields[3])).toBe(child.pid); // session
  });

  it('gives the process exactly the env it was given, none of the server', async () => {
    const child = bareSpawn('/usr/bin/env', [], { cwd, env: { ONLY: 'this' }, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(await outcome(child)).toEqual({ stdout: 'ONLY=this\n', code: 0, signal: null });
  });

  it('writes the input to stdin and bytes given for an extra descriptor to its pipe', async () => {
    const child = bareSpawn('bash', ['-c', 'cat; echo; cat <&3'], {
      cwd,
      env: {},
      stdio: ['pipe', 'pipe', 'pipe', Buffer.from('on three')],
      input: 'on stdin',
    });
    expect(await outcome(child)).toEqual({ stdout: 'on stdin\non three', code: 0, signal: null });
  });

  it('lets a command leave its input unread without an error of ours', async () => {
    const child = bareSpawn('bash', ['-c', 'exit 3'], { cwd, env: {}, stdio: ['pipe', 'pipe', 'pipe'], input: 'x'.repeat(4 * 1024 * 1024) });
    expect(await outcome(child)).toMatchObject({ code: 3 });
  });

  it('tells a program that does not exist by its code, with no pid', async () => {
    const child = bareSpawn('/nonexistent/dsh-no-such-shell', [], { cwd, env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(child.pid).toBeUndefined();
    const failure = await child.then((settled: SpawnFailure | undefined) => settled);
    expect(failure).toMatchObject({ code: 'ENOENT' });
    expect(failure!.originalMessage).toContain('ENOENT');
  });

  it('reports the errors node throws instead of emitting (E2BIG) the same way', async () => {
    const child = bareSpawn('bash', ['-c', 'x'.repeat(200_000)], { cwd, env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(child.pid).toBeUndefined();
    expect(await child.then((settled) => settled?.code)).toBe('E2BIG');
  });

  it('settles with no failure once a started process exited', async () => {
    const child = bareSpawn('true', [], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(child.pid).toEqual(expect.any(Number));
    expect(await child.then((settled) => settled)).toBeUndefined();
    expect(child.exitCode).toBe(0);
  });
});
