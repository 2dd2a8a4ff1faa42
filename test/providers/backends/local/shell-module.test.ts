import { Container } from 'inversify';
import fs from 'node:fs';
import { LocalShellExecutor } from '../../../../src/providers/backends/local/local-shell-executor.js';
import { shellModule } from '../../../../src/providers/backends/local/shell.module.js';
import { ShellExecutor } from '../../../../src/providers/exec/shell/shell-executor.js';

describe('shellModule', () => {
  it('binds ShellExecutor to a singleton LocalShellExecutor with the given config', async () => {
    const container = new Container();
    const module = shellModule({ maxOutputBytes: 10, graceMs: 100 });
    expect(module.name).toBe('shell:local');
    await container.load(module);
    const executor = container.get(ShellExecutor);
    expect(executor).toBeInstanceOf(LocalShellExecutor);
    expect(container.get(ShellExecutor)).toBe(executor);
    expect((executor as LocalShellExecutor).config).toMatchObject({ maxOutputBytes: 10, graceMs: 100, timeoutMs: 120_000 });

    // Unloading disposes the executor: its spills are deleted and it refuses work.
    const result = await executor.run(executor.checkRequest({ command: 'seq 1 100' }));
    const dir = (executor as LocalShellExecutor).spillDirectory!;
    expect(fs.existsSync(result.stdoutSpillPath!)).toBe(true);
    await container.unload(module);
    expect(fs.existsSync(dir)).toBe(false);
    await expect(executor.run(executor.checkRequest({ command: 'true' }))).rejects.toThrow('shell executor is disposed');
  });

  it('works without any config (all defaults)', async () => {
    const container = new Container();
    await container.load(shellModule());
    const executor = container.get(ShellExecutor) as LocalShellExecutor;
    expect(executor.config.maxOutputBytes).toBe(64_000);
    await executor.dispose();
  });

  it('fails at load with the config error, not at first use', async () => {
    const container = new Container();
    await expect(container.load(shellModule({ timeoutMs: -1 }))).rejects.toThrow(
      'invalid executor config: timeoutMs must be a positive integer',
    );
  });

  it('constructs with defaults when no config is bound at all', async () => {
    const container = new Container();
    container.bind(ShellExecutor).to(LocalShellExecutor).inSingletonScope();
    const executor = container.get(ShellExecutor) as LocalShellExecutor;
    expect(executor.config.timeoutMs).toBe(120_000);
    await executor.dispose();
  });
});
