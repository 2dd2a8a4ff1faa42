import { DshHost } from '../../src/container/dsh-host.js';
import { PluginModule } from '../../src/core/plugin-module.js';
import { ShellExecutor } from '../../src/providers/exec/shell/shell-executor.js';
import { bindSeam, bindTool } from '../../src/core/contributions.js';
import { Tool } from '../../src/core/tool.decorator.js';
import { textResult } from '../../src/core/tool-contract.js';
import { EchoArgs, echoToolModule, Recorder, recorderModule } from '../support/echo-tool.js';

describe('tool readiness', () => {
  let host: DshHost;
  beforeEach(() => {
    host = new DshHost();
  });
  afterEach(() => host.dispose());

  it('keeps a tool pending until a later load binds its requirement, then activates it', async () => {
    await host.load(echoToolModule());
    expect(host.pending()).toEqual([{ name: 'echo', missing: ['test.Recorder'], plugin: 'tools:echo' }]);
    expect(host.tools()).toEqual([]);
    const early = await host.call('echo', { text: 'hi' });
    expect(early).toEqual({
      content: [{ type: 'text', text: 'Error: tool "echo" is not ready: missing test.Recorder' }],
      isError: true,
    });

    await host.load(recorderModule());
    expect(host.pending()).toEqual([]);
    expect(host.tools().map((tool) => tool.name)).toEqual(['echo']);
    const result = await host.call('echo', { text: 'hi' });
    expect(result.content[0]!.text).toBe('hi');
  });

  it('deactivates and disposes a tool when the plugin providing its requirement is unloaded', async () => {
    const recorder: Recorder = { seen: [], disposed: 0 };
    const provider = recorderModule(recorder);
    await host.load(echoToolModule(), provider);
    expect(host.tools()).toHaveLength(1);

    await host.unload(provider);
    expect(recorder.disposed).toBe(1);
    expect(host.tools()).toEqual([]);
    expect(host.pending()).toEqual([{ name: 'echo', missing: ['test.Recorder'], plugin: 'tools:echo' }]);
    expect((await host.call('echo', { text: 'x' })).isError).toBe(true);

    await host.load(recorderModule(recorder));
    expect((await host.call('echo', { text: 'back' })).content[0]!.text).toBe('back');
  });

  it('forgets a tool whose own plugin is unloaded', async () => {
    const tools = echoToolModule();
    await host.load(recorderModule(), tools);
    await host.unload(tools);
    expect(host.tools()).toEqual([]);
    expect(host.pending()).toEqual([]);
    expect((await host.call('echo', { text: 'x' })).content[0]!.text).toBe('Error: unknown tool "echo"');
  });

  it('keeps two hosts in one process isolated', async () => {
    const other = new DshHost();
    try {
      await host.load(echoToolModule(), recorderModule());
      await other.load(echoToolModule());
      expect(host.tools().map((tool) => tool.name)).toEqual(['echo']);
      expect(other.tools()).toEqual([]);
      expect(other.pending()).toEqual([{ name: 'echo', missing: ['test.Recorder'], plugin: 'tools:echo' }]);
    } finally {
      await other.dispose();
    }
  });

  it('rejects a second provider for a single-provider seam, naming the plugin and the seam', async () => {
    const fake = { checkRequest: () => ({}) } as unknown as ShellExecutor;
    await host.load(new PluginModule('shell:first', ({ bind }) => void bindSeam(bind, ShellExecutor).toConstantValue(fake)));
    await expect(
      host.load(new PluginModule('shell:second', ({ bind }) => void bind(ShellExecutor).toConstantValue(fake))),
    ).rejects.toThrow(
      'failed to load plugin "shell:second": plugin "shell:second" binds a second provider for ShellExecutor',
    );
    expect(host.get(ShellExecutor)).toBe(fake);
  });

  it('refuses to load the same plugin twice', async () => {
    const module = recorderModule();
    await host.load(module);
    await expect(host.load(module)).rejects.toThrow('plugin "provider:recorder" is already loaded');
  });

  it('refuses two active tools with one name and leaves the host as it was', async () => {
    @Tool({ name: 'echo', description: 'Another echo.', args: EchoArgs, requires: [] })
    class SecondEcho {
      async run() {
        return textResult('second');
      }
    }
    await host.load(echoToolModule(), recorderModule());
    await expect(
      host.load(new PluginModule('tools:echo2', ({ bind }) => bindTool(bind, SecondEcho))),
    ).rejects.toThrow('two tools are named "echo" (EchoTool of plugin "tools:echo" and SecondEcho of plugin "tools:echo2"); unload one, or rename one (renamedTool) before loading it');
    expect(host.tools().map((tool) => tool.name)).toEqual(['echo']);
    expect((await host.call('echo', { text: 'one' })).content[0]!.text).toBe('one');
  });

  it('rebuilds an active tool when rebind() replaces a provider it requires', async () => {
    const first: Recorder = { seen: [], disposed: 0 };
    const second: Recorder = { seen: [], disposed: 0 };
    await host.load(echoToolModule(), recorderModule(first));
    await host.call('echo', { text: 'a' });
    await host.rebind(Recorder, second);
    await host.call('echo', { text: 'b' });
    expect(first.seen).toEqual([{ text: 'a' }]);
    expect(second.seen).toEqual([{ text: 'b' }]);
    expect(first.disposed).toBe(1);
  });

  it('refuses a tool class bound by two plugins', async () => {
    await host.load(echoToolModule());
    await expect(host.load(echoToolModule())).rejects.toThrow('binds tool class EchoTool, which is already bound');
  });
});
