// Every ordered pair of replace, rebind, decorate, unload and load, from a
// composition with and without a decorator: after each step the tools answer
// with the provider the documented rules say serves, every other provider
// made so far is disposed, and host.dispose() leaves none alive.
import 'reflect-metadata';
import { createHost, replace, type DshHost, type PluginModule } from 'dsh-tools';
import { greetModule, Greeter, greeterModule, Greeters, saluteModule, shouting } from '../src/greeting.js';

type Op = 'replace' | 'rebind' | 'decorate' | 'unload' | 'load';
const OPS: Op[] = ['replace', 'rebind', 'decorate', 'unload', 'load'];

interface World {
  readonly host: DshHost;
  readonly greeters: Greeters;
  readonly swaps: Array<{ module: PluginModule; name: string }>;
  readonly decorated: boolean;
  saluting: boolean;
}

async function apply(world: World, op: Op, name: string): Promise<void> {
  const { host, greeters, swaps } = world;
  if (op === 'replace') {
    const module = replace(Greeter, { useFactory: () => greeters.make(name) }, name);
    await host.load(module);
    swaps.push({ module, name });
  } else if (op === 'rebind') {
    swaps.push({ module: await host.rebind(Greeter, greeters.make(name)), name });
  } else if (op === 'decorate') {
    // The tools use Greeter already: a decorator now could not wrap it, so it is refused and nothing changes.
    await expect(host.load(shouting(name))).rejects.toThrow(
      `failed to load plugin "${name}": it decorates consumer.Greeter, which is already built and in use`,
    );
  } else if (op === 'unload') {
    const last = swaps.pop();
    if (last) await host.unload(last.module);
  } else if (!world.saluting) {
    await host.load(saluteModule());
    world.saluting = true;
  }
}

async function check(world: World): Promise<void> {
  const serving = world.swaps[world.swaps.length - 1]?.name ?? 'base';
  const greeting = world.decorated ? serving.toUpperCase() : serving;
  expect((await world.host.call('greet', {})).content[0]?.text).toBe(greeting);
  if (world.saluting) expect((await world.host.call('salute', {})).content[0]?.text).toBe(`dear ${greeting}`);
  expect(world.host.pending()).toEqual([]);
  expect(world.greeters.live()).toEqual([serving]);
}

const PAIRS = [false, true].flatMap((decorated) => OPS.flatMap((first) => OPS.map((second) => [decorated, first, second] as const)));

it.each(PAIRS)('decorator in the composition: %s; %s then %s', async (decorated, first, second) => {
  const greeters = new Greeters();
  const host = await createHost(greeterModule(greeters), ...(decorated ? [shouting()] : []), greetModule());
  const world: World = { host, greeters, swaps: [], decorated, saluting: false };
  try {
    await check(world);
    await apply(world, first, 'first');
    await check(world);
    await apply(world, second, 'second');
    await check(world);
    while (world.swaps.length > 0) await apply(world, 'unload', '');
    await check(world);
  } finally {
    await host.dispose();
  }
  expect(greeters.live()).toEqual([]);
});

it('rebuilds the singleton between a tool and the swapped provider, and disposes the old provider', async () => {
  const greeters = new Greeters();
  const host = await createHost(greeterModule(greeters), saluteModule());
  try {
    expect((await host.call('salute', {})).content[0]?.text).toBe('dear base');
    const swap = await host.rebind(Greeter, greeters.make('rebound'));
    expect((await host.call('salute', {})).content[0]?.text).toBe('dear rebound');
    await host.unload(swap);
    expect((await host.call('salute', {})).content[0]?.text).toBe('dear base');
    expect(greeters.made.map((greeter) => [greeter.name, greeter.disposed])).toEqual([
      ['base', true],
      ['rebound', true],
      ['base', false],
    ]);
  } finally {
    await host.dispose();
  }
});
