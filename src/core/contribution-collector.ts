import type { ContainerModuleLoadOptions, ServiceIdentifier } from 'inversify';
import { tokenName } from './token-name.js';

/**
 * Every contribution bound under a multi-bound token, read when called — not
 * when the consumer was built — so a plugin loaded later is seen by the next
 * call; nothing bound reads as `[]`. The one way consumers collect
 * contributions (env contributors, terminal backends, approval answerers, and
 * the host's tools and prompt sections).
 */
export type Contributions<T> = () => readonly T[];

/** What can list a token's bindings: the host's container, an Inversify resolution context. */
export interface ContributionSource {
  getAll<T>(token: ServiceIdentifier<T>, options?: { optional?: boolean }): T[];
}

/** The contributions under `token` now; `[]` when none is bound. */
export function readContributions<T>(source: ContributionSource, token: ServiceIdentifier<T>): T[] {
  return source.getAll(token, { optional: true }) ?? [];
}

/** The token of the `Contributions<T>` collector for a multi-bound `token`. */
export function contributionsOf<T>(token: ServiceIdentifier<T>): ServiceIdentifier<Contributions<T>> {
  return Symbol.for(`dsh.Contributions(${tokenName(token)})`);
}

/**
 * Binds the collector of `token` (once: a second module that owns a consumer
 * of the same contributions finds it bound). The contribution point's module
 * calls it beside the consumer it binds.
 */
export function bindContributions<T>(
  options: Pick<ContainerModuleLoadOptions, 'bind' | 'isBound'>,
  token: ServiceIdentifier<T>,
): void {
  const collector = contributionsOf(token);
  if (options.isBound(collector)) return;
  options.bind(collector).toDynamicValue((context) => () => readContributions(context, token));
}

/** A collector as is; a fixed list (direct construction in tests and embedders) as a collector of that list. */
export function asContributions<T>(source: Contributions<T> | readonly T[] | undefined): Contributions<T> {
  if (typeof source === 'function') return source;
  const list: readonly T[] = Object.freeze([...(source ?? [])]);
  return () => list;
}
