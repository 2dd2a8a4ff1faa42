// Every pair of swaps, in either order, from two starting compositions (with
// and without a decorator loaded with it): the greeting the tools answer
// follows a model of the documented semantics (docs/embedding.md, "Swaps"),
// nothing replaced or unloaded keeps serving, everything is disposed, and
// host.dispose() resolves although the decorator's wrapper has no dispose().
import 'reflect-metadata';
import { createHost, replace, type DshHost, type PluginModule } from '../../src/index.js';
import { Greeter, Greeters, baseGreeter, greetAgainTool, greetTool, undisposableWrapper } from './greeter-kit.js';

type Op = 'replace' | 'rebind' | 'decorate' | 'unload' | 'load';
const OPS: Op[] = ['replace', 'rebind', 'decorate', 'unload', 'load'];

interface World {
  readonly host: DshHost;
  readonly greeters: Greeters;
  /** The swaps loaded, oldest first, with the name of the provider each serves. */
  readonly swaps: Array<{ module: PluginModule; name: string }>;
  readonly decorated: boolean;
  tools: string[];
  counter: number;
}

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');

async function apply(world: World, op: Op): Promise<void> {
  const { host, greeters, swaps } = world;
  const name = `${op}-${++world.counter}`;
  switch (op) {
    case 'replace': {
      const module = replace(Greeter, { useFactory: () => greeters.make(name) }, name);
      await host.load(module);
      swaps.push({ module, name });
      return;
    }
    case 'rebind': {
      swaps.push({ module: await host.rebind(Greeter, greeters.make(name)), name });
      return;
    }
    case 'decorate':
      // The tools already use Greeter: a late decorator is refused, saying what to do, and nothing changes.
      await expect(host.load(undisposableWrapper(name))).rejects.toThrow(
        `failed to load plugin "${name}": it decorates test.Greeter, which is already built and in use (a decorator wraps a provider when it is built); load decorate() with the composition`,
      );
      return;
    case 'unload': {
      const last = swaps.pop();
      if (last) await host.unload(last.module);
      return;
    }
    case 'load':
      if (!world.tools.includes('greet_again')) {
        await host.load(greetAgainTool());
        world.tools.push('greet_again');
      }
      return;
  }
}

function expected(world: World): string {
  const serving = world.swaps[world.swaps.length - 1]?.name ?? 'base';
  return world.decorated ? `deco(${serving})` : serving;
}

async function check(world: World): Promise<void> {
  const want = expected(world);
  for (const tool of world.tools) expect(text(await world.host.call(tool, {}))).toBe(want);
  expect(world.host.pending()).toEqual([]);
  // Exactly one live greeter serves; every other one made so far was disposed.
  const serving = want.replace(/^deco\((.*)\)$/, '$1');
  const live = world.greeters.made.filter((greeter) => greeter.disposed === 0);
  expect(live.map((greeter) => greeter.name)).toEqual([serving]);
}

const PAIRS = [false, true].flatMap((decorated) => OPS.flatMap((first) => OPS.map((second) => [decorated, first, second] as const)));

describe('swap pairs', () => {
  it.each(PAIRS)('decorated in the composition: %s; %s then %s', async (decorated, first, second) => {
    const greeters = new Greeters();
    const host = await createHost(baseGreeter(greeters), ...(decorated ? [undisposableWrapper()] : []), greetTool());
    const world: World = { host, greeters, swaps: [], decorated, tools: ['greet'], counter: 0 };
    try {
      await check(world);
      await apply(world, first);
      await check(world);
      await apply(world, second);
      await check(world);
      // Unloading every swap left brings the base provider back (built anew).
      while (world.swaps.length > 0) await apply(world, 'unload');
      await check(world);
    } finally {
      await expect(host.dispose()).resolves.toBeUndefined();
    }
    expect(greeters.made.filter((greeter) => greeter.disposed === 0)).toEqual([]);
  });
});
