// The consumer's unit test: the production plugins (and the consumer's own)
// with only the process edge swapped for a scripted fake, NestJS-style.
import 'reflect-metadata';
import { createHost, replace, ShellExecutor, type DshHost } from 'dsh-tools';
import { ScriptedExecutor, testingEnvironment } from 'dsh-tools/testing';
import { diskUsageModule } from '../src/disk-usage.tool.js';

describe('disk_usage over the scripted executor', () => {
  let executor: ScriptedExecutor;
  let host: DshHost;

  beforeEach(async () => {
    executor = new ScriptedExecutor({
      'du -sk "dist"': { stdout: '42\tdist\n', exitCode: 0 },
      'du -sk "gone"': { stderr: 'du: cannot access gone\n', exitCode: 1 },
    });
    host = await createHost(...testingEnvironment(), diskUsageModule(), replace(ShellExecutor, executor));
  });

  afterEach(() => host.dispose());

  it('reports the size from du and runs it in the session directory', async () => {
    const result = await host.openSession({ id: 'agent-1', cwd: '/repo' }).call('disk_usage', { path: 'dist' });
    expect(result.content[0]?.text).toBe('dist: 42 KiB');
    expect(result.value).toEqual({ path: 'dist', kilobytes: 42 });
    expect(executor.runs[0]).toMatchObject({ command: 'du -sk "dist"', workdir: '/repo' });
    expect(executor.runs[0]?.dshEnv).toMatchObject({ DSH_SESSION_ID: 'agent-1' });
  });

  it('turns a failing du into an Error result', async () => {
    const result = await host.openSession({ cwd: '/repo' }).call('disk_usage', { path: 'gone' });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toBe('Error: du failed for gone: du: cannot access gone');
  });

  it('validates arguments with the argument class', async () => {
    const result = await host.call('disk_usage', { path: '' });
    expect(result.content[0]?.text).toBe('Error: invalid path: expected a non-empty string');
  });

  it('keeps the built-in bash tool working over the same fake, with a typed value', async () => {
    executor.on('make test', { stdout: '3 passed\n', exitCode: 0 });
    const result = await host.openSession({ cwd: '/repo' }).call('bash', { command: 'make test', description: 'Run the tests' });
    expect(result.content[0]?.text).toBe('3 passed');
    const value = result.value;
    expect(value?.kind === 'foreground' && 'stdout' in value ? value.exitCode : 'missing').toBe(0);
  });

  it('types its value and arguments by name: the registry extended in src/tool-types.ts', async () => {
    const result = await host.openSession({ cwd: '/repo' }).call('disk_usage', { path: 'dist' });
    const kilobytes: number | undefined = result.value?.kilobytes;
    expect(kilobytes).toBe(42);
    // @ts-expect-error: a wrong argument type is a compile error for a registered tool
    const wrong = await host.call('disk_usage', { path: 1 });
    expect(wrong.content[0]?.text).toBe('Error: invalid path: expected a non-empty string');
  });

  it('shows the prompt section only while its tool is mounted', () => {
    expect(host.prompt().sections.map((section) => section.name)).toContain('tool:disk_usage');
  });
});
