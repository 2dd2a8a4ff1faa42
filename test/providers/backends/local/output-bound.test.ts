import fs from 'node:fs';
import path from 'node:path';
import { ExecutorPool, runCommand } from '../../../support/shell-test-kit.js';

/** What `seq 1 n` prints. */
function seqText(n: number): string {
  let text = '';
  for (let i = 1; i <= n; i++) text += `${i}\n`;
  return text;
}

describe('LocalShellExecutor.run: bounded output', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('keeps small output in memory only: no spill, no spill directory', async () => {
    const executor = pool.make();
    const result = await runCommand(executor, 'seq 1 1000; seq 1 10 >&2');
    expect(result.stdout).toBe(seqText(1000));
    expect(result.stdoutTruncated).toBe(false);
    expect(result.stdoutSpillPath).toBeUndefined();
    expect(executor.spillDirectory).toBeUndefined();
  });

  it('keeps the tail in memory and the complete stream in a private spill file', async () => {
    const executor = pool.make({ maxOutputBytes: 64_000 });
    const expected = seqText(60_000); // ~349 KB
    const result = await runCommand(executor, 'seq 1 60000; echo tail-of-stderr >&2');

    expect(result.stdoutTruncated).toBe(true);
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(64_000);
    expect(result.stdout.length).toBeLessThanOrEqual(64_000);
    expect(result.stdout).toBe(expected.slice(-64_000));

    const spill = result.stdoutSpillPath!;
    expect(spill).toBeDefined();
    expect(path.dirname(spill)).toBe(executor.spillDirectory);
    expect(fs.statSync(spill).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(spill)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(spill).size).toBe(Buffer.byteLength(expected));
    expect(fs.readFileSync(spill, 'utf8')).toBe(expected);

    expect(result.stderr).toBe('tail-of-stderr\n');
    expect(result.stderrTruncated).toBe(false);
    expect(result.stderrSpillPath).toBeUndefined();
  });

  it('spills each stream separately', async () => {
    const executor = pool.make({ maxOutputBytes: 1000 });
    const result = await runCommand(executor, 'seq 1 2000 >&2; echo out');
    expect(result.stdout).toBe('out\n');
    expect(result.stderrTruncated).toBe(true);
    expect(fs.readFileSync(result.stderrSpillPath!, 'utf8')).toBe(seqText(2000));
  });

  it('drops the spill past maxSpillBytes and reports it unavailable', async () => {
    const executor = pool.make({ maxOutputBytes: 1000, maxSpillBytes: 5000 });
    const result = await runCommand(executor, 'head -c 20000 /dev/zero | tr "\\0" x');
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stdout).toBe('x'.repeat(1000));
    expect(result.stdoutSpillPath).toBeUndefined();
    // Depending on chunking the spill was never started or started and deleted: either way no file is left.
    const dir = executor.spillDirectory;
    expect(dir === undefined ? [] : fs.readdirSync(dir)).toEqual([]);
  });

  it('keeps a spill of exactly maxSpillBytes', async () => {
    const executor = pool.make({ maxOutputBytes: 1000, maxSpillBytes: 5000 });
    const result = await runCommand(executor, 'head -c 5000 /dev/zero | tr "\\0" y');
    expect(fs.readFileSync(result.stdoutSpillPath!, 'utf8')).toBe('y'.repeat(5000));
  });

  it.each([999, 1000, 1001, 1002])(
    'never starts a truncated tail with a split UTF-8 character (bound %i)',
    async (bound) => {
      const executor = pool.make({ maxOutputBytes: bound });
      // 'x' shifts the 3-byte characters so the cut lands on every offset across the bounds.
      const result = await runCommand(executor, `printf x; for i in $(seq 1 2000); do printf '\\342\\202\\254'; done`);
      expect(result.stdoutTruncated).toBe(true);
      expect(result.stdout).not.toContain('\uFFFD');
      expect(result.stdout).toMatch(/^€+$/);
      expect(Buffer.byteLength(result.stdout)).toBeGreaterThan(bound - 3);
    },
  );

  it('deletes the spill directory on dispose', async () => {
    const executor = pool.make({ maxOutputBytes: 100 });
    const result = await runCommand(executor, 'seq 1 1000');
    const dir = executor.spillDirectory!;
    expect(fs.existsSync(result.stdoutSpillPath!)).toBe(true);
    await executor.dispose();
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('keeps the spill files after dispose when keepSpills is set', async () => {
    const executor = pool.make({ maxOutputBytes: 100, keepSpills: true });
    const result = await runCommand(executor, 'seq 1 1000');
    await executor.dispose();
    try {
      expect(fs.readFileSync(result.stdoutSpillPath!, 'utf8')).toBe(seqText(1000));
    } finally {
      fs.rmSync(path.dirname(result.stdoutSpillPath!), { recursive: true, force: true });
    }
  });

  it('deletes the oldest finished spills past maxRetainedSpillBytes, keeping the newest', async () => {
    const executor = pool.make({ maxOutputBytes: 100, maxSpillBytes: 100_000, maxRetainedSpillBytes: 10_000 });
    const first = await runCommand(executor, 'seq 1 1500');
    const second = await runCommand(executor, 'seq 1 1500');
    expect(fs.existsSync(first.stdoutSpillPath!)).toBe(false);
    expect(fs.readFileSync(second.stdoutSpillPath!, 'utf8')).toBe(seqText(1500));
  });
});
