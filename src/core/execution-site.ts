import type { ServiceIdentifier } from 'inversify';

/** Where a composition runs commands: on this machine, in the bwrap sandbox, in a session container (or pod). */
export type ExecutionSite = 'local' | 'sandbox' | 'container';

/**
 * Declared by the module that decides where commands run (multi-bound: a
 * container composition that also loads the sandbox module declares both,
 * and the outermost wins). Observers read it instead of guessing from which
 * providers happen to be bound; none declared is `local`.
 */
export const ExecutionSite: ServiceIdentifier<ExecutionSite> = Symbol.for('dsh.ExecutionSite');

const OUTERMOST: readonly ExecutionSite[] = ['container', 'sandbox', 'local'];

/** The site that applies when several modules declared one. */
export function executionSiteOf(declared: readonly ExecutionSite[]): ExecutionSite {
  return OUTERMOST.find((site) => declared.includes(site)) ?? 'local';
}
