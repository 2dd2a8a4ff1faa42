// What an agent backend's own unit test looks like: the production tool and
// registries, with one binding swapped for a scripted fake.
import { createHost, replace, ShellExecutor } from '../../src/index.js';
import { InMemoryTerminal, ScriptedExecutor, testingEnvironment } from '../../src/testing.js';

describe('a user composition with a mock binding', () => {
  it('runs the real bash tool against a scripted executor swapped in by replace()', async () => {
    const executor = new ScriptedExecutor({ 'make test': { stdout: '3 passed\n', exitCode: 1 } });
    const host = await createHost(...testingEnvironment(), replace(ShellExecutor, executor));
    try {
      const session = host.openSession({ id: 'agent-1', cwd: '/repo' });
      const result = await session.call('bash', { command: 'make test', description: 'Run the test suite' });

      expect(result.content[0]!.text).toBe('3 passed\n[exit code: 1]');
      expect(result.isError).toBeUndefined();
      expect(result.value).toMatchObject({ kind: 'foreground', exitCode: 1 });
      expect(executor.runs).toHaveLength(1);
      expect(executor.runs[0]).toMatchObject({ command: 'make test', workdir: '/repo' });
      expect(executor.runs[0]!.dshEnv).toMatchObject({ DSH_SESSION_ID: 'agent-1', DSH_SHELL: '1' });
    } finally {
      await host.dispose();
    }
  });

  it('rebuilds an active tool when a later plugin replaces a provider it uses', async () => {
    const first = new ScriptedExecutor({}, { stdout: 'first\n' });
    const second = new ScriptedExecutor({}, { stdout: 'second\n' });
    const host = await createHost(...testingEnvironment({ executor: first }));
    try {
      const args = { command: 'whoami', description: 'Show the user' };
      expect((await host.call('bash', args)).content[0]!.text).toBe('first');
      await host.load(replace(ShellExecutor, second));
      expect((await host.call('bash', args)).content[0]!.text).toBe('second');
    } finally {
      await host.dispose();
    }
  });
});

describe('a user composition with the persistent shell over the in-memory terminal', () => {
  it('keeps shell state between calls without spawning anything', async () => {
    const terminal = new InMemoryTerminal((command, shell) => (command === 'pwd' ? `${shell.cwd}\n` : ''));
    const host = await createHost(...testingEnvironment({ shell: 'persistent', terminal }));
    try {
      const session = host.openSession({ id: 'agent-2', cwd: '/repo' });
      await session.call('bash', { command: 'cd src' });
      const result = await session.call('bash', { command: 'pwd' });
      expect(result.content[0]!.text).toBe('/repo/src');
      expect(terminal.shells).toHaveLength(1);
      expect(terminal.shells[0]!.env.DSH_SESSION_ID).toBe('agent-2');

      const exited = await session.call('bash', { command: 'exit 7' });
      expect(exited.content[0]!.text).toContain('[shell exited: code 7]');
      await session.call('bash', { command: 'pwd' });
      expect(terminal.shells).toHaveLength(2);
    } finally {
      await host.dispose();
    }
  });
});
