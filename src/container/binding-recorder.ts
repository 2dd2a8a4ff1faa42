import type { ResolutionContext, ServiceIdentifier } from 'inversify';
import { edgesOfTarget, type BindingGraph } from './binding-graph.js';

/**
 * A binding's fluent syntax that tells the host's graph what the binding
 * builds from: a class's constructor tokens (`.to`, `.toSelf`), the token a
 * `.toService` aliases, and, for a factory (`.toDynamicValue`), the tokens it
 * resolves through its context, learnt as it builds. A value binding is
 * recorded with no edges; `.inSingletonScope()` marks the binding a
 * singleton, which the host rebuilds when a token it reaches is swapped
 * (src/container/singleton-rebuild.ts).
 */
export function recordingBinding<T extends object>(syntax: T, graph: BindingGraph, owner: object, token: ServiceIdentifier): T {
  return new Proxy(syntax, {
    get(target, key) {
      const member: unknown = Reflect.get(target, key, target);
      if (typeof member !== 'function' || typeof key !== 'string' || !key.startsWith('to')) return typeof member === 'function' ? member.bind(target) : member;
      return (...args: unknown[]) => {
        if (key === 'to' || key === 'toSelf') graph.record(owner, token, edgesOfTarget('class', args[0] ?? token));
        else if (key === 'toService') graph.record(owner, token, edgesOfTarget('service', args[0]));
        else graph.record(owner, token, []);
        if (key === 'toDynamicValue' && typeof args[0] === 'function') args[0] = learningFactory(args[0] as Factory, graph, owner, token);
        const next: unknown = (member as (...a: unknown[]) => unknown).apply(target, args);
        return scopeWatching(next, () => graph.markSingleton(owner, token));
      };
    },
  });
}

type Factory = (context: ResolutionContext) => unknown;

/** A factory whose context records each token it resolves as an edge of the binding. */
function learningFactory(factory: Factory, graph: BindingGraph, owner: object, token: ServiceIdentifier): Factory {
  return (context) => {
    const learning = new Proxy(context, {
      get(target, key) {
        const member: unknown = Reflect.get(target, key, target);
        if (typeof member !== 'function') return member;
        if (key !== 'get' && key !== 'getAsync' && key !== 'getAll' && key !== 'getAllAsync') return member.bind(target);
        return (id: ServiceIdentifier, options?: { optional?: boolean }) => {
          graph.learn(owner, token, { token: id, optional: options?.optional === true });
          return (member as (...a: unknown[]) => unknown).call(target, id, options);
        };
      },
    });
    return factory(learning);
  };
}

/** The next step of a chain, telling `singleton` when it is put in singleton scope. */
function scopeWatching<T>(syntax: T, singleton: () => void): T {
  if (typeof syntax !== 'object' || syntax === null || typeof (syntax as { inSingletonScope?: unknown }).inSingletonScope !== 'function') return syntax;
  return new Proxy(syntax as object, {
    get(target, key) {
      const member: unknown = Reflect.get(target, key, target);
      if (typeof member !== 'function') return member;
      if (key !== 'inSingletonScope') return member.bind(target);
      return (...args: unknown[]) => (singleton(), (member as (...a: unknown[]) => unknown).apply(target, args));
    },
  }) as T;
}
