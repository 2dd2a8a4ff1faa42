// A singleton between a tool and a swapped provider (a service bound in
// singleton scope that injects the provider) is rebuilt on every kind of swap
// — replace, rebind, unload of the replacement, a load that binds what it
// takes optionally, a swap under a decorator — and its old instance disposed;
// with a class binding, a factory that resolves through its context, and a
// resolved value that names its injections.
import 'reflect-metadata';
import { jest } from '@jest/globals';
import { inject, injectable, optional, type ServiceIdentifier } from 'inversify';
import { PluginModule, Tool, bindTool, createHost, replace, textResult, type DshHost, type ToolInstance } from '../../src/index.js';
import { Greeter, Greeters, NoArgs, baseGreeter, undisposableWrapper } from './greeter-kit.js';

const Punctuation: ServiceIdentifier<string> = Symbol.for('test.Punctuation');
@injectable()
class Salutation {
  static made: Salutation[] = [];
  disposed = 0;
  constructor(
    @inject(Greeter) private readonly greeter: Greeter,
    @inject(Punctuation) @optional() private readonly punctuation: string | undefined,
  ) {
    Salutation.made.push(this);
  }
  line(): string {
    return `${this.greeter.greet()}${this.punctuation ?? ''}`;
  }
  dispose(): void {
    this.disposed += 1;
  }
}

const SalutationToken: ServiceIdentifier<Salutation> = Symbol.for('test.Salutation');

@Tool({ name: 'salute', description: 'Salute.', args: NoArgs })
class SaluteTool implements ToolInstance<NoArgs> {
  constructor(@inject(SalutationToken) private readonly salutation: Salutation) {}
  async run() {
    return textResult(this.salutation.line());
  }
}

const byClass = () =>
  new PluginModule('salutation:class', ({ bind }) => {
    bind(SalutationToken).to(Salutation).inSingletonScope();
    bindTool(bind, SaluteTool);
  });
// A factory singleton: the host learns what it uses from what it resolves.
const byFactory = () =>
  new PluginModule('salutation:factory', ({ bind }) => {
    bind(SalutationToken)
      .toDynamicValue((context) => new Salutation(context.get(Greeter), context.get(Punctuation, { optional: true })))
      .inSingletonScope();
    bindTool(bind, SaluteTool);
  });

// Raw Inversify: the class names its own scope, the binding none.
@injectable('Singleton')
class DeclaredSingleton extends Salutation {
  constructor(@inject(Greeter) greeter: Greeter, @inject(Punctuation) @optional() punctuation: string | undefined) {
    super(greeter, punctuation);
  }
}
const byDeclaredScope = () =>
  new PluginModule('salutation:declared', ({ bind }) => {
    bind(SalutationToken).to(DeclaredSingleton);
    bindTool(bind, SaluteTool);
  });

// Raw Inversify: the greeter comes in through a property.
@injectable()
class PropertySalutation extends Salutation {
  @inject(Greeter) private readonly held!: Greeter;
  constructor(@inject(Punctuation) @optional() punctuation: string | undefined) {
    super({ name: 'held', greet: () => this.held.greet() }, punctuation);
  }
}
const byProperty = () =>
  new PluginModule('salutation:property', ({ bind }) => {
    bind(SalutationToken).to(PropertySalutation).inSingletonScope();
    bindTool(bind, SaluteTool);
  });

// Its injections named in the binding (Inversify's toResolvedValue).
const byResolvedValue = () =>
  new PluginModule('salutation:resolved', ({ bind }) => {
    bind(SalutationToken)
      .toResolvedValue((greeter: Greeter, punctuation?: string) => new Salutation(greeter, punctuation), [Greeter, { serviceIdentifier: Punctuation, optional: true }])
      .inSingletonScope();
    bindTool(bind, SaluteTool);
  });

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const salute = async (host: DshHost) => text(await host.call('salute', {}));

describe.each([
  ['a class', byClass],
  ['a factory', byFactory],
  ['a resolved value', byResolvedValue],
  ['a class that declares itself a singleton', byDeclaredScope],
  ['a class injecting by property', byProperty],
])('a singleton intermediary bound to %s', (_kind, salutation) => {
  let greeters: Greeters;
  let host: DshHost | undefined;
  beforeEach(() => {
    greeters = new Greeters();
    Salutation.made = [];
  });
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
  });

  /** The salutations made so far that are not disposed: exactly one (the serving one) while the host is up. */
  const live = () => Salutation.made.filter((made) => made.disposed === 0);

  it('is rebuilt by a replace(), and again when the replacement is unloaded', async () => {
    host = await createHost(baseGreeter(greeters), salutation());
    expect(await salute(host)).toBe('base');
    const swap = replace(Greeter, { useFactory: () => greeters.make('swapped') }, 'swap');
    await host.load(swap);
    expect(await salute(host)).toBe('swapped');
    expect(Salutation.made[0]!.disposed).toBe(1);
    await host.unload(swap);
    expect(await salute(host)).toBe('base');
    expect(Salutation.made).toHaveLength(3);
    expect(live()).toEqual([Salutation.made[2]]);
  });

  it('is rebuilt by host.rebind', async () => {
    host = await createHost(baseGreeter(greeters), salutation());
    expect(await salute(host)).toBe('base');
    await host.rebind(Greeter, greeters.make('rebound'));
    expect(await salute(host)).toBe('rebound');
    expect(live()).toEqual([Salutation.made[1]]);
  });

  it('is rebuilt when a load binds what it takes optionally, and when that is unloaded', async () => {
    host = await createHost(baseGreeter(greeters), salutation());
    expect(await salute(host)).toBe('base');
    const bang = new PluginModule('punctuation', ({ bind }) => void bind(Punctuation).toConstantValue('!'));
    await host.load(bang);
    expect(await salute(host)).toBe('base!');
    await host.unload(bang);
    expect(await salute(host)).toBe('base');
    expect(live()).toEqual([Salutation.made[2]]);
  });

  it('is rebuilt over the decorated replacement when a decorator was loaded with the composition', async () => {
    host = await createHost(baseGreeter(greeters), undisposableWrapper(), salutation());
    expect(await salute(host)).toBe('deco(base)');
    await host.rebind(Greeter, greeters.make('rebound'));
    expect(await salute(host)).toBe('deco(rebound)');
    expect(live()).toEqual([Salutation.made[1]]);
  });

  it('goes pending with the token named when its provider is unloaded, and everything is disposed at the end', async () => {
    const base = baseGreeter(greeters);
    host = await createHost(base, salutation());
    expect(await salute(host)).toBe('base');
    await host.unload(base);
    expect(host.pending()).toEqual([expect.objectContaining({ name: 'salute', missing: ['test.Greeter'] })]);
    expect(live()).toEqual([]);
    await host.dispose();
    expect(greeters.made.filter((greeter) => greeter.disposed === 0)).toEqual([]);
  });

  it('a singleton nothing swapped under keeps its instance', async () => {
    host = await createHost(baseGreeter(greeters), salutation());
    expect(await salute(host)).toBe('base');
    await host.load(new PluginModule('unrelated', ({ bind }) => void bind(Symbol.for('test.Unrelated')).toConstantValue(1)));
    expect(await salute(host)).toBe('base');
    expect(Salutation.made).toHaveLength(1);
  });
});

describe('a singleton whose dispose() throws', () => {
  @injectable()
  class Fragile {
    constructor(@inject(Greeter) readonly greeter: Greeter) {}
    dispose(): void {
      throw new Error('disk gone');
    }
  }
  const FragileToken: ServiceIdentifier<Fragile> = Symbol.for('test.Fragile');

  @Tool({ name: 'fragile', description: 'Greet through a fragile service.', args: NoArgs })
  class FragileTool implements ToolInstance<NoArgs> {
    constructor(@inject(FragileToken) private readonly fragile: Fragile) {}
    async run() {
      return textResult(this.fragile.greeter.greet());
    }
  }

  it('is still rebuilt, and the failure is reported as a warning naming it', async () => {
    const greeters = new Greeters();
    const host = await createHost(
      baseGreeter(greeters),
      new PluginModule('fragile', ({ bind }) => {
        bind(FragileToken).to(Fragile).inSingletonScope();
        bindTool(bind, FragileTool);
      }),
    );
    const emitted = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      expect(text(await host.call('fragile', {}))).toBe('base');
      await host.rebind(Greeter, greeters.make('rebound'));
      expect(text(await host.call('fragile', {}))).toBe('rebound');
      expect(emitted).toHaveBeenCalledWith('disposing the old test.Fragile (rebuilt after a swap) failed: disk gone', { code: 'DSH_DISPOSE_FAILED' });
    } finally {
      emitted.mockRestore();
      await host.dispose().catch(() => undefined);
    }
  });
});
