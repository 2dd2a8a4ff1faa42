import type { ContainerModuleLoadOptions, ServiceIdentifier } from 'inversify';
import { bindContributions } from '../../core/contribution-collector.js';

/**
 * A provider the server needs before it can take calls (the container
 * engine, the Kubernetes API). Multi-bound: every module whose provider must
 * answer binds one beside it with `bindReadinessCheck`; the HTTP server's
 * `GET /readyz` runs them all, read when asked (`contributionsOf(ReadinessCheck)`).
 */
export interface ReadinessCheck {
  /** Short name for logs, e.g. `container engine`. */
  readonly name: string;
  /**
   * Resolves with undefined when ready, else with a short reason that is safe
   * to show to anyone who can reach the port (no endpoints, no credentials).
   * Should answer within a few seconds; the server gives up after 5.
   */
  check(): Promise<string | undefined>;
}

export const ReadinessCheck: ServiceIdentifier<ReadinessCheck> = Symbol.for('dsh.ReadinessCheck');

/** Binds `check` under `ReadinessCheck` (and the collector, once). */
export function bindReadinessCheck(
  options: Pick<ContainerModuleLoadOptions, 'bind' | 'isBound'>,
  check: (get: <T>(token: ServiceIdentifier<T>) => T) => ReadinessCheck,
): void {
  bindContributions(options, ReadinessCheck);
  options.bind(ReadinessCheck).toDynamicValue((ctx) => check((token) => ctx.get(token)));
}
