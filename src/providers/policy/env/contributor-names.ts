// `EnvContributor.resolve` was renamed `valuesFor` in 0.2; for one deprecation
// cycle a contributor may still implement only the old name.
import { warnDeprecatedOnce } from '../../logging/deprecation.js';
import type { Logger } from '../../logging/logger.js';
import type { EnvContributor, EnvExecution } from './env-registry.js';

/** `contributor.valuesFor(execution)`, or its deprecated `resolve` (warned about once per contributor) when it has only that. */
export function contributorValues(contributor: EnvContributor, execution: EnvExecution, logger?: Logger): Readonly<Record<string, string | undefined>> {
  if (typeof contributor.valuesFor === 'function') return contributor.valuesFor(execution);
  if (typeof contributor.resolve === 'function') {
    warnDeprecatedOnce(
      contributor,
      `env contributor "${contributor.name}" implements resolve(), renamed valuesFor() in 0.2; resolve() is no longer called after the next minor release`,
      logger,
    );
    return contributor.resolve(execution);
  }
  throw new Error(`env contributor "${contributor.name}" implements neither valuesFor() nor resolve()`);
}
