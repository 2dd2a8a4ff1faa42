import type { ResolutionContext, ServiceIdentifier } from 'inversify';
import { declaresSingleton, type ConstructorToken } from '../core/constructor-tokens.js';
import { edgesOfTarget, type BindingGraph } from './binding-graph.js';

/**
 * A binding's fluent syntax that tells the host's graph what the binding
 * builds from: a class's constructor tokens (`.to`, `.toSelf`), the token a
 * `.toService` aliases, and, for a factory (`.toDynamicValue`), the tokens it
 * resolves through its context, learnt as it builds, and the tokens a
 * `.toResolvedValue(factory, [...])` names. A value binding is
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
        else if (key === 'toResolvedValue') graph.record(owner, token, resolvedValueEdges(args[1]));
        else graph.record(owner, token, []);
        if ((key === 'toDynamicValue' || key === 'toFactory') && typeof args[0] === 'function') args[0] = learningFactory(args[0] as Factory, graph, owner, token);
        const next: unknown = (member as (...a: unknown[]) => unknown).apply(target, args);
        // A class may name its scope itself (`@injectable('Singleton')`); the binding's own in…Scope() overrides it.
        if ((key === 'to' || key === 'toSelf') && declaresSingleton(args[0] ?? token)) graph.markSingleton(owner, token);
        return scopeWatching(next, (singleton) => (singleton ? graph.markSingleton(owner, token) : graph.unmarkSingleton(owner, token)));
      };
    },
  });
}

type Factory = (context: ResolutionContext) => unknown;

/** The tokens a `toResolvedValue(factory, [inject options])` names (an identifier, a lazy one, or `{ serviceIdentifier, optional }`). */
function resolvedValueEdges(options: unknown): ConstructorToken[] {
  if (!Array.isArray(options)) return [];
  return options.flatMap((option: unknown) => {
    const described = option as { serviceIdentifier?: unknown; optional?: boolean } | undefined;
    const isDescribed = typeof option === 'object' && option !== null && 'serviceIdentifier' in option;
    const [edge] = edgesOfTarget('service', isDescribed ? described!.serviceIdentifier : option);
    return edge === undefined ? [] : [{ token: unwrapLazy(edge.token), optional: isDescribed && described!.optional === true }];
  });
}

/** `new LazyServiceIdentifier(() => X)` stands for X. */
function unwrapLazy(token: ServiceIdentifier): ServiceIdentifier {
  const lazy = token as { unwrap?: () => ServiceIdentifier };
  return typeof token === 'object' && token !== null && typeof lazy.unwrap === 'function' ? lazy.unwrap() : token;
}

/**
 * A factory whose context records each token it resolves while it builds as
 * an edge of the binding. A resolve after it returned (a context kept to look
 * up providers at use time) is not an edge: that service already sees a swap,
 * and rebuilding it would lose its state (an approval service's records).
 */
function learningFactory(factory: Factory, graph: BindingGraph, owner: object, token: ServiceIdentifier): Factory {
  return (context) => {
    let building = true;
    const learning = new Proxy(context, {
      get(target, key) {
        const member: unknown = Reflect.get(target, key, target);
        if (typeof member !== 'function') return member;
        if (key !== 'get' && key !== 'getAsync' && key !== 'getAll' && key !== 'getAllAsync') return member.bind(target);
        return (id: ServiceIdentifier, options?: { optional?: boolean }) => {
          if (building) graph.learn(owner, token, { token: id, optional: options?.optional === true });
          return (member as (...a: unknown[]) => unknown).call(target, id, options);
        };
      },
    });
    try {
      return factory(learning);
    } finally {
      building = false;
    }
  };
}

/** The next step of a chain, telling `scoped` which scope it is put in (singleton or not). */
function scopeWatching<T>(syntax: T, scoped: (singleton: boolean) => void): T {
  if (typeof syntax !== 'object' || syntax === null || typeof (syntax as { inSingletonScope?: unknown }).inSingletonScope !== 'function') return syntax;
  return new Proxy(syntax as object, {
    get(target, key) {
      const member: unknown = Reflect.get(target, key, target);
      if (typeof member !== 'function') return member;
      if (key !== 'inSingletonScope' && key !== 'inTransientScope' && key !== 'inRequestScope') return member.bind(target);
      return (...args: unknown[]) => (scoped(key === 'inSingletonScope'), (member as (...a: unknown[]) => unknown).apply(target, args));
    },
  }) as T;
}
