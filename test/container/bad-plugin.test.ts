// One bad plugin stays pending with its reason; the rest of the host loads,
// and backends caching the tool list hear about every change.
import 'reflect-metadata';
import { inject } from 'inversify';
import type { ServiceIdentifier } from 'inversify';
import { PluginModule, Tool, bindTool, createHost, replace, textResult, type ToolsChanged } from '../../src/index.js';
import { Greeter, Greeters, NoArgs, baseGreeter, greetTool } from './greeter-kit.js';

const Missing: ServiceIdentifier<unknown> = Symbol.for('test.NotBoundAnywhere');

@Tool({ name: 'explodes', description: 'Throws in its constructor.', args: NoArgs, requires: [] })
class ExplodingTool {
  constructor() {
    throw new Error('config file /etc/explodes.yaml is missing');
  }
  async run() {
    return textResult('never');
  }
}

// Injects a token that is in no `requires` and bound by nobody.
@Tool({ name: 'forgetful', description: 'Injects an unlisted token.', args: NoArgs, requires: [] })
class ForgetfulTool {
  constructor(@inject(Missing) readonly missing: unknown) {}
  async run() {
    return textResult('never');
  }
}

const exploding = () => new PluginModule('tools:explodes', ({ bind }) => bindTool(bind, ExplodingTool));
const forgetful = () => new PluginModule('tools:forgetful', ({ bind }) => bindTool(bind, ForgetfulTool));

describe('a plugin that cannot start', () => {
  it('a throwing constructor leaves its tool pending with the plugin and the reason; the other tools work', async () => {
    const host = await createHost(baseGreeter(new Greeters()), exploding(), greetTool());
    try {
      expect(host.tools().map((tool) => tool.name)).toEqual(['greet']);
      expect(host.pending()).toEqual([
        { name: 'explodes', missing: [], plugin: 'tools:explodes', error: 'its constructor failed (plugin "tools:explodes"): config file /etc/explodes.yaml is missing' },
      ]);
      expect((await host.call('greet', {})).content[0]!.text).toBe('base');
      const call = await host.call('explodes', {});
      expect(call.isError).toBe(true);
      expect(call.content[0]!.text).toBe('Error: tool "explodes" is not ready: its constructor failed (plugin "tools:explodes"): config file /etc/explodes.yaml is missing');
    } finally {
      await host.dispose();
    }
  });

  it('a tool injecting a token missing from its requires waits for it, named, instead of failing createHost', async () => {
    const host = await createHost(baseGreeter(new Greeters()), forgetful(), greetTool());
    try {
      expect(host.tools().map((tool) => tool.name)).toEqual(['greet']);
      expect(host.pending()).toEqual([{ name: 'forgetful', missing: ['test.NotBoundAnywhere'], plugin: 'tools:forgetful' }]);
      await host.load(replace(Missing, { useValue: 'now bound' }, 'late provider'));
      expect(host.tools().map((tool) => tool.name).sort()).toEqual(['forgetful', 'greet']);
    } finally {
      await host.dispose();
    }
  });

  it('tells listeners what changed: pending → active, unloaded, failed', async () => {
    const host = await createHost(forgetful(), greetTool());
    const changes: ToolsChanged[] = [];
    host.onToolsChanged((change) => changes.push(change));
    const base = baseGreeter(new Greeters());
    await host.load(base);
    const bad = exploding();
    await host.load(bad);
    await host.unload(base);
    await host.unload(bad);
    expect(changes).toEqual([
      { activated: ['greet'], deactivated: [], pending: ['forgetful'] },
      { activated: [], deactivated: [], pending: ['explodes', 'forgetful'] },
      { activated: [], deactivated: ['greet'], pending: ['explodes', 'forgetful', 'greet'] },
      { activated: [], deactivated: [], pending: ['forgetful', 'greet'] },
    ]);
    expect(host.pending().map((tool) => tool.name)).toEqual(['forgetful', 'greet']);
    await host.dispose();
  });
});
