import fs from 'node:fs';
import { handMade } from '../../../support/hand-made-spec.js';
import os from 'node:os';
import path from 'node:path';
import { ExecutorPool, runCommand } from '../../../support/shell-test-kit.js';

describe('LocalShellExecutor.run: infrastructure failures reject', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('rejects a missing workdir with a message naming the directory', async () => {
    const missing = path.join(os.tmpdir(), `no-such-dir-${process.pid}-${Date.now()}`);
    await expect(runCommand(pool.make(), { command: 'true', workdir: missing })).rejects.toThrow(
      `workdir does not exist: ${missing}`,
    );
  });

  it('rejects a workdir that is a file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shell-file-'));
    const file = path.join(dir, 'plain');
    fs.writeFileSync(file, 'x');
    try {
      await expect(runCommand(pool.make(), { command: 'true', workdir: file })).rejects.toThrow(
        `workdir is not a directory: ${file}`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects clearly when the shell is missing', async () => {
    const executor = pool.make({ shellPath: '/nonexistent/bin/bash' });
    await expect(runCommand(executor, 'true')).rejects.toThrow(
      /cannot start the shell: \/nonexistent\/bin\/bash was not found/,
    );
  });

  it('rejects an invalid hand-made spec instead of spawning it', async () => {
    const executor = pool.make();
    await expect(executor.run(handMade({ command: '', workdir: '/', timeoutMs: 1000 }))).rejects.toThrow(
      'invalid command: expected a non-empty string',
    );
    await expect(executor.run(handMade({ command: 'true', workdir: '/', timeoutMs: Number.NaN }))).rejects.toThrow(
      'invalid timeoutMs: expected a positive number, got NaN',
    );
  });

  it('caps a hand-made spec timeout at maxTimeoutMs', async () => {
    const executor = pool.make({ maxTimeoutMs: 1000, timeoutMs: 1000 });
    const result = await executor.run(handMade({ command: 'true', workdir: '/', timeoutMs: 999_999 }));
    expect(result.timeoutMs).toBe(1000);
  });

  it('rejects run and start after dispose', async () => {
    const executor = pool.make();
    await executor.dispose();
    const spec = handMade({ command: 'true', workdir: '/', timeoutMs: 1000 });
    await expect(executor.run(spec)).rejects.toThrow('shell executor is disposed');
    await expect(executor.start(spec)).rejects.toThrow('shell executor is disposed');
  });
});
