import type { ServiceIdentifier } from 'inversify';
import { injectedTokens, type ConstructorToken } from '../core/constructor-tokens.js';

/**
 * What each bound token's provider injects, read from the constructor
 * metadata of the class it is bound to (`.to(cls)`, `.toSelf()`) or from the
 * token it aliases (`.toService(other)`). A value or a factory has no edges.
 * The host walks it so a swap of any provider rebuilds every tool that reaches
 * it through other providers (a tool → its planner → the executor), with no
 * list of them repeated in `@Tool({ optional })`.
 */
export class BindingGraph {
  /** Per plugin (its guarded module), per token, the edges of what it bound. */
  private readonly byOwner = new Map<object, Map<ServiceIdentifier, ConstructorToken[]>>();
  /** Per plugin, the tokens it bound in singleton scope. */
  private readonly singletonsOf = new Map<object, Set<ServiceIdentifier>>();

  /** Records that `owner` bound `token` to something that injects `edges`. */
  record(owner: object, token: ServiceIdentifier, edges: readonly ConstructorToken[]): void {
    const tokens = this.byOwner.get(owner) ?? new Map<ServiceIdentifier, ConstructorToken[]>();
    tokens.set(token, [...(tokens.get(token) ?? []), ...edges]);
    this.byOwner.set(owner, tokens);
  }

  /** A factory of `owner`'s binding of `token` resolved `edge` while building (recorded once). */
  learn(owner: object, token: ServiceIdentifier, edge: ConstructorToken): void {
    const known = this.byOwner.get(owner)?.get(token);
    if (known && !known.some((other) => other.token === edge.token)) known.push(edge);
  }

  /** `owner` bound `token` in singleton scope. */
  markSingleton(owner: object, token: ServiceIdentifier): void {
    this.singletonsOf.set(owner, (this.singletonsOf.get(owner) ?? new Set()).add(token));
  }

  /** `owner`'s binding of `token` was put in another scope. */
  unmarkSingleton(owner: object, token: ServiceIdentifier): void {
    this.singletonsOf.get(owner)?.delete(token);
  }

  /** Whether a current binding of `token` is a singleton. */
  isSingleton(token: ServiceIdentifier): boolean {
    return [...this.singletonsOf.values()].some((tokens) => tokens.has(token));
  }

  /** Every token some current binding holds in singleton scope. */
  singletons(): Set<ServiceIdentifier> {
    return new Set([...this.singletonsOf.values()].flatMap((tokens) => [...tokens]));
  }

  /** The owners (guarded modules) whose bindings of `token` are current, in the order they bound it. */
  bindersOf(token: ServiceIdentifier): object[] {
    return [...this.byOwner].filter(([, tokens]) => tokens.has(token)).map(([owner]) => owner);
  }

  /** `token` was unbound (a rebind): every owner's edges of it go. */
  unbound(token: ServiceIdentifier): void {
    for (const tokens of this.byOwner.values()) tokens.delete(token);
    for (const tokens of this.singletonsOf.values()) tokens.delete(token);
  }

  /** `owner` was unloaded. */
  forget(owner: object): void {
    this.byOwner.delete(owner);
    this.singletonsOf.delete(owner);
  }

  /** What `token`'s providers inject, across owners. */
  edgesOf(token: ServiceIdentifier): ConstructorToken[] {
    return [...this.byOwner.values()].flatMap((tokens) => tokens.get(token) ?? []);
  }

  /** Every token reachable from `start` (included), through every edge. */
  reachable(start: Iterable<ServiceIdentifier>): Set<ServiceIdentifier> {
    const seen = new Set<ServiceIdentifier>();
    const queue = [...start];
    while (queue.length > 0) {
      const token = queue.pop()!;
      if (seen.has(token)) continue;
      seen.add(token);
      for (const edge of this.edgesOf(token)) queue.push(edge.token);
    }
    return seen;
  }

  /**
   * The tokens a build of `start` cannot do without: `start` itself, then,
   * through each bound token, what its provider injects without `@optional()`.
   */
  required(start: Iterable<ServiceIdentifier>, isBound: (token: ServiceIdentifier) => boolean): Set<ServiceIdentifier> {
    const seen = new Set<ServiceIdentifier>();
    const queue = [...start];
    while (queue.length > 0) {
      const token = queue.shift()!;
      if (seen.has(token)) continue;
      seen.add(token);
      if (!isBound(token)) continue;
      for (const edge of this.edgesOf(token)) if (!edge.optional) queue.push(edge.token);
    }
    return seen;
  }
}

/** The edges of a binding target: what a class injects (constructor and properties), or the one token a `toService` aliases. */
export function edgesOfTarget(kind: 'class' | 'service', target: unknown): ConstructorToken[] {
  if (kind === 'service') return target === undefined ? [] : [{ token: target as ServiceIdentifier, optional: false }];
  return injectedTokens(target);
}
