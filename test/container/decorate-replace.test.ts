// A decorator wraps whatever provider is bound last: a replace() loaded after
// decorate() (a test override, an environment module) must not silently drop
// an audit wrapper.
import { createHost, decorate, localEnvironment, PluginModule, replace, ShellExecutor, type ExecSpec } from '../../src/index.js';
import { ScriptedExecutor } from '../../src/testing.js';

/** A decorator that records each command it sees and forwards everything. */
function auditing(seen: string[]): PluginModule {
  return decorate(ShellExecutor, (inner) => ({
    checkRequest: (request) => inner.checkRequest(request),
    start: (spec) => inner.start(spec),
    run: (spec: ExecSpec, options) => {
      seen.push(spec.command);
      return inner.run(spec, options);
    },
  }));
}

const scripted = () => new ScriptedExecutor({ 'make test': { stdout: 'ok\n', exitCode: 0 } });
const makeTest = { command: 'make test', description: 'Run the tests' };

describe('decorate() then replace() on the same token', () => {
  it('keeps the decorator around the replacement', async () => {
    const seen: string[] = [];
    const host = await createHost(...localEnvironment({ workspace: '/tmp' }), auditing(seen), replace(ShellExecutor, scripted()));
    const result = await host.openSession({ cwd: '/tmp' }).call('bash', makeTest);
    expect(result.content[0]!.text).toBe('ok');
    expect(seen).toEqual(['make test']);
    await host.dispose();
  });

  it('keeps it across host.rebind() and a second replace()', async () => {
    const seen: string[] = [];
    const host = await createHost(...localEnvironment({ workspace: '/tmp' }), auditing(seen), replace(ShellExecutor, scripted()));
    await host.load(replace(ShellExecutor, scripted(), 'second override'));
    await host.openSession({ cwd: '/tmp' }).call('bash', makeTest);
    await host.rebind(ShellExecutor, scripted());
    await host.openSession({ cwd: '/tmp' }).call('bash', makeTest);
    expect(seen).toEqual(['make test', 'make test']);
    await host.dispose();
  });
});
