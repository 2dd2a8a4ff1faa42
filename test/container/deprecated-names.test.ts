// `ShellExecutor.resolve` → `checkRequest` and `EnvContributor.resolve` →
// `valuesFor` (0.2): for one deprecation cycle a provider that implements only
// the old name type-checks, is still called, and is warned about once through
// the host's Logger. Real host, real bash.
import { jest } from '@jest/globals';
import {
  checkRequestWith,
  createHost,
  decorate,
  EnvContributor,
  LocalShellExecutor,
  localEnvironment,
  Logger,
  PluginModule,
  replace,
  ShellExecutor,
  type BackgroundProcess,
  type DshHost,
  type EnvExecution,
  type ExecRequest,
  type ExecSpec,
  type RunOptions,
  type RunResult,
} from '../../src/index.js';

/** Written against 0.1: implements `resolve`, not `checkRequest`. */
class OldStyleExecutor implements ShellExecutor {
  readonly checked: string[] = [];
  constructor(private readonly inner: ShellExecutor) {}
  resolve(request: ExecRequest): ExecSpec {
    this.checked.push(request.command);
    return checkRequestWith(this.inner, request);
  }
  run(spec: ExecSpec, options?: RunOptions): Promise<RunResult> {
    return this.inner.run(spec, options);
  }
  start(spec: ExecSpec): Promise<BackgroundProcess> {
    return this.inner.start(spec);
  }
}

/** A 0.1 contributor: `resolve` only. */
const oldStyleContributor: EnvContributor = {
  name: 'legacy',
  keys: [{ key: 'DSH_LEGACY', description: 'set by a contributor written against 0.1' }],
  resolve: (execution: EnvExecution) => ({ DSH_LEGACY: `from-${execution.mode}` }),
};

const newStyleContributor: EnvContributor = {
  name: 'current',
  keys: [{ key: 'DSH_CURRENT', description: 'set through valuesFor' }],
  valuesFor: () => ({ DSH_CURRENT: 'yes' }),
};

function recordingLogger(): Logger & { readonly warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug: () => undefined, info: () => undefined, warn: (message) => warnings.push(message), error: () => undefined };
}

const contributors = (...list: EnvContributor[]) =>
  new PluginModule('env:test-contributors', ({ bind }) => {
    for (const contributor of list) bind(EnvContributor).toConstantValue(contributor);
  });

describe('deprecated method names, kept for one cycle', () => {
  let host: DshHost | undefined;
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
  });

  it('runs through an executor that implements only resolve(), and warns once through the Logger', async () => {
    const logger = recordingLogger();
    let wrapper: OldStyleExecutor | undefined;
    host = await createHost(
      ...localEnvironment({ workspace: '/tmp' }),
      replace(Logger, logger),
      decorate(ShellExecutor, (inner) => (wrapper = new OldStyleExecutor(inner))),
    );
    const session = host.openSession({ cwd: '/tmp' });
    const first = await session.call('bash', { command: 'echo one', description: 'Echo' });
    const second = await session.call('bash', { command: 'echo two', description: 'Echo' });
    expect([first.content[0]?.text, second.content[0]?.text]).toEqual(['one', 'two']);
    expect(wrapper?.checked).toEqual(['echo one', 'echo two']);
    expect(logger.warnings).toEqual([
      'deprecated: ShellExecutor "OldStyleExecutor" implements resolve(), renamed checkRequest() in 0.2; resolve() is no longer called after the next minor release',
    ]);
  });

  it('collects a contributor that implements only resolve(), warns once, and says nothing about valuesFor()', async () => {
    const logger = recordingLogger();
    host = await createHost(...localEnvironment({ workspace: '/tmp' }), replace(Logger, logger), contributors(oldStyleContributor, newStyleContributor));
    const session = host.openSession({ cwd: '/tmp' });
    const command = { command: 'echo "$DSH_LEGACY $DSH_CURRENT"', description: 'Show the overlay' };
    const first = await session.call('bash', command);
    const second = await session.call('bash', command);
    expect([first.content[0]?.text, second.content[0]?.text]).toEqual(['from-foreground yes', 'from-foreground yes']);
    expect(logger.warnings).toEqual([
      'deprecated: env contributor "legacy" implements resolve(), renamed valuesFor() in 0.2; resolve() is no longer called after the next minor release',
    ]);
  });

  it('keeps resolve() on the built-in executor as the same check as checkRequest()', async () => {
    const executor = new LocalShellExecutor({ cwd: '/srv/project', timeoutMs: 1000, maxTimeoutMs: 2000 });
    const request = { command: 'true', workdir: 'lib', timeoutMs: 9000 };
    expect({ ...executor.resolve(request) }).toEqual({ ...executor.checkRequest(request) });
    expect(executor.checkRequest(request)).toMatchObject({ workdir: '/srv/project/lib', timeoutMs: 2000 });
    expect(() => executor.resolve({ command: '' })).toThrow('invalid command');
    await executor.dispose();
  });

  it('without a Logger, warns once as a Node DeprecationWarning', async () => {
    const inner = new LocalShellExecutor();
    const bare = { resolve: (request: ExecRequest) => inner.checkRequest(request), run: inner.run.bind(inner), start: inner.start.bind(inner) };
    const emitted = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      checkRequestWith(bare, { command: 'true' });
      checkRequestWith(bare, { command: 'true' });
      expect(emitted.mock.calls).toEqual([
        ['ShellExecutor (a plain object) implements resolve(), renamed checkRequest() in 0.2; resolve() is no longer called after the next minor release', 'DeprecationWarning'],
      ]);
    } finally {
      emitted.mockRestore();
      await inner.dispose();
    }
  });

  it('refuses an executor with neither name, with an Error that says so', () => {
    const nameless = { run: () => Promise.reject(new Error('unused')), start: () => Promise.reject(new Error('unused')) } as ShellExecutor;
    expect(() => checkRequestWith(nameless, { command: 'true' })).toThrow('ShellExecutor (a plain object) implements neither checkRequest() nor resolve()');
  });
});
