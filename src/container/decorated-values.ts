// A decorator's wrapper becomes the value Inversify caches for a binding, and
// Inversify hands that cached value to the binding's own deactivation handler:
// a module written `.onDeactivation((shell) => shell.dispose())` would then call
// a wrapper that has no `dispose()` (docs/embedding.md, "decorate"). The host
// gives a binding's handler the provider the binding built instead.

/** Each decorator wrapper's inner value (kept per object: two hosts never share a wrapper). */
const inners = new WeakMap<object, unknown>();

/** Records that `outer` wraps `inner` (what `decorate()` returns around what was bound). */
export function noteDecorated(outer: unknown, inner: unknown): void {
  if (typeof outer === 'object' && outer !== null && outer !== inner) inners.set(outer, inner);
}

/** The provider under every decorator wrapping `value` (itself when it is not a wrapper). */
function innermost(value: unknown): unknown {
  let current = value;
  const seen = new Set<unknown>();
  while (typeof current === 'object' && current !== null && inners.has(current) && !seen.has(current)) {
    seen.add(current);
    current = inners.get(current);
  }
  return current;
}

/**
 * A binding's fluent syntax whose `onDeactivation(handler)` hands `handler`
 * the provider the binding built, never a decorator's wrapper of it. Every
 * object a call returns (the next step of the chain) is wrapped the same way.
 */
export function withBuiltValueDeactivation<T>(syntax: T): T {
  if (typeof syntax !== 'object' || syntax === null) return syntax;
  const proxy: T = new Proxy(syntax as object, {
    get(target, key) {
      const member: unknown = Reflect.get(target, key, target);
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        const handler = args[0];
        if (key === 'onDeactivation' && typeof handler === 'function') {
          args[0] = (value: unknown) => (handler as (value: unknown) => unknown)(innermost(value));
        }
        const next: unknown = (member as (...a: unknown[]) => unknown).apply(target, args);
        return next === target ? proxy : withBuiltValueDeactivation(next);
      };
    },
  }) as T;
  return proxy;
}
