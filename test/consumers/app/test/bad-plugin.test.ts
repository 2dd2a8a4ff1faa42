// A plugin whose tools cannot start leaves the host up: each waits in
// pending() with the plugin and the reason, a call says so, the rest works,
// and a backend that caches the tool list hears when it changes.
import 'reflect-metadata';
import { createHost, localEnvironment, PluginModule, type ToolsChanged } from 'dsh-tools';
import { tmpdir } from 'node:os';
import { brokenModule, Ledger } from '../src/broken.plugin.js';

it('keeps the host up with the reasons in pending(), and activates a tool once its token is bound', async () => {
  const host = await createHost(...localEnvironment({ workspace: tmpdir() }), brokenModule());
  try {
    expect(host.pending()).toEqual([
      { name: 'explode', plugin: 'broken', missing: [], error: 'its constructor failed (plugin "broken"): no licence key configured' },
      { name: 'ledger_total', plugin: 'broken', missing: ['consumer.Ledger'] },
    ]);
    expect((await host.call('explode', {})).content[0]?.text).toBe('Error: tool "explode" is not ready: its constructor failed (plugin "broken"): no licence key configured');
    expect((await host.call('ledger_total', {})).content[0]?.text).toBe('Error: tool "ledger_total" is not ready: missing consumer.Ledger');
    expect((await host.call('bash', { command: 'echo up', description: 'Echo' })).content[0]?.text).toBe('up');

    const changes: ToolsChanged[] = [];
    const stop = host.onToolsChanged((change) => changes.push(change));
    await host.load(new PluginModule('ledger', ({ bind }) => void bind(Ledger).toConstantValue({ total: () => 42 })));
    stop();
    expect(changes).toEqual([{ activated: ['ledger_total'], deactivated: [], pending: ['explode'] }]);
    expect((await host.call('ledger_total', {})).content[0]?.text).toBe('42');
  } finally {
    await host.dispose();
  }
});
