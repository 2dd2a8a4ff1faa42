import type { Container, ServiceIdentifier } from 'inversify';
import { messageOf } from '../core/describe-value.js';
import { tokenName } from '../core/token-name.js';
import type { BindingGraph } from './binding-graph.js';
import { disposeIfDisposable } from './provider-swap.js';
import type { ServiceHandlers } from './service-handlers.js';

/** What the rebuild needs of the host's plugins. */
export interface RebuildSite {
  readonly container: Container;
  readonly graph: BindingGraph;
  readonly handlers: ServiceHandlers;
  /** Tokens resolved since they were last (re)bound. */
  readonly activated: Set<ServiceIdentifier>;
  /** The values built for `token` so far (forgotten: they are about to go). */
  takeBuilt(token: ServiceIdentifier): unknown[];
  /** Binds `token` again as the plugin behind `owner` bound it (the same recipe). */
  replay(owner: object, token: ServiceIdentifier): Promise<void>;
}

/**
 * Inversify caches a singleton for as long as its binding lives, and 7.11
 * cannot drop one binding's cache. So when `changed` tokens were swapped,
 * every singleton built from them, directly or through other providers
 * (read from constructor metadata and factories: binding-graph.ts), is bound
 * again with the recipe its plugin used: the next resolve builds it over the
 * new providers. The old instance is deactivated by the unbind and disposed
 * (`dispose()`, when it has one), dependents before what they depend on.
 * Returns the tokens rebuilt (docs/embedding.md, "Swaps: the semantics").
 */
export async function rebuildSingletonDependents(site: RebuildSite, changed: ReadonlySet<ServiceIdentifier>): Promise<ServiceIdentifier[]> {
  const { graph } = site;
  const reaches = (token: ServiceIdentifier): Set<ServiceIdentifier> => graph.reachable(graph.edgesOf(token).map((edge) => edge.token));
  const stale = [...graph.singletons()].filter((token) => !changed.has(token) && site.activated.has(token) && [...reaches(token)].some((used) => changed.has(used)));
  if (stale.length === 0) return [];
  stale.sort((a, b) => (reaches(a).has(b) ? -1 : reaches(b).has(a) ? 1 : 0));
  const old = new Map<unknown, ServiceIdentifier>();
  for (const token of stale) {
    const binders = graph.bindersOf(token);
    const edges = graph.edgesOf(token);
    for (const value of site.takeBuilt(token)) if (!old.has(value)) old.set(value, token);
    site.activated.delete(token);
    await site.container.unbind(token);
    graph.unbound(token);
    site.handlers.reinstall(token);
    for (const owner of binders) await site.replay(owner, token);
    // What a factory resolved is learnt as it builds: the rebuilt binding keeps it until it builds again.
    for (const owner of graph.bindersOf(token)) for (const edge of edges) graph.learn(owner, token, edge);
  }
  for (const [value, token] of old) {
    // A failing dispose must not undo the swap: it is reported, the rebuild stands.
    await disposeIfDisposable(value).catch((error: unknown) =>
      process.emitWarning(`disposing the old ${tokenName(token)} (rebuilt after a swap) failed: ${messageOf(error)}`, { code: 'DSH_DISPOSE_FAILED' }),
    );
  }
  return stale;
}
