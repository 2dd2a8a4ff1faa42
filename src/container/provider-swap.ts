import type { Newable, ResolutionContext, ServiceIdentifier } from 'inversify';
import { PluginModule } from '../core/plugin-module.js';
import { noteDecorated } from './decorated-values.js';

/** How `replace()` provides the new binding (NestJS-style); a bare value is `{ useValue }`. */
export type ProviderSpec<T> =
  | { readonly useValue: T }
  | { readonly useClass: Newable<T> }
  | { readonly useFactory: (context: ResolutionContext) => T };

const SPEC_KEYS = ['useValue', 'useClass', 'useFactory'];

/** A spec is a plain object with exactly one of the `use*` keys; anything else is a value. */
function isProviderSpec<T>(provider: T | ProviderSpec<T>): provider is ProviderSpec<T> {
  if (typeof provider !== 'object' || provider === null) return false;
  const proto = Object.getPrototypeOf(provider) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(provider);
  return keys.length === 1 && SPEC_KEYS.includes(keys[0]!);
}

/** Calls `dispose()` when the object has one: the lifecycle every provider seam offers. */
export async function disposeIfDisposable(value: unknown): Promise<void> {
  const dispose = (value as { dispose?: unknown } | null | undefined)?.dispose;
  if (typeof dispose === 'function') await (dispose as () => unknown).call(value);
}

/**
 * A plugin that replaces whatever an earlier plugin bound under `token`.
 * Load it after the plugin it overrides (the usual place: the last entry of a
 * test's module list). The replacement keeps the provider lifecycle: a value
 * or a factory's result is disposed (`dispose()`, when it has one) when the
 * host is disposed or the plugin unloaded; a `useClass` class is a singleton
 * built by the container, its `@preDestroy` run like any provider's.
 */
export function replace<T>(token: ServiceIdentifier<T>, provider: T | ProviderSpec<T>, name = 'override'): PluginModule {
  const spec: ProviderSpec<T> = isProviderSpec(provider) ? provider : { useValue: provider };
  // The async rebind: an active provider's disposal (a promise) must be awaited before the new binding.
  return new PluginModule(name, async ({ rebind }) => {
    const binding = await rebind(token);
    if ('useClass' in spec) binding.to(spec.useClass).inSingletonScope();
    else if ('useFactory' in spec) binding.toDynamicValue(spec.useFactory).inSingletonScope().onDeactivation(disposeIfDisposable);
    else binding.toConstantValue(spec.useValue).onDeactivation(disposeIfDisposable);
  });
}

/**
 * A plugin that wraps the provider bound under `token` (whichever plugin
 * bound it) in `wrap(inner)`; every consumer gets the wrapper. At disposal
 * the wrapper is disposed, then the inner provider, each through its
 * `dispose()` when it has one — so a wrapper that forgets to forward
 * `dispose()` still leaves nothing behind. Providers' `dispose()` must be
 * idempotent (the container may call a wrapper's too). Load it with the
 * composition, before anything resolves `token`.
 */
export function decorate<T>(token: ServiceIdentifier<T>, wrap: (inner: T) => T, name = 'decorate'): PluginModule {
  const inners = new WeakMap<object, T>();
  return new PluginModule(name, ({ onActivation, onDeactivation }) => {
    onActivation(token, (_context, inner) => {
      const outer = wrap(inner);
      if (typeof outer === 'object' && outer !== null && outer !== inner) inners.set(outer, inner);
      noteDecorated(outer, inner);
      return outer;
    });
    const disposals = new WeakMap<object, Promise<void>>();
    const disposeBoth = (outer: T): Promise<void> | undefined => {
      if (typeof outer !== 'object' || outer === null || !inners.has(outer)) return undefined;
      let disposal = disposals.get(outer);
      if (!disposal) {
        disposal = (async () => {
          await disposeIfDisposable(outer);
          await disposeIfDisposable(inners.get(outer));
        })();
        disposals.set(outer, disposal);
      }
      return disposal;
    };
    // The host runs it once per value, and awaits it (src/container/service-handlers.ts).
    onDeactivation(token, disposeBoth);
  });
}
