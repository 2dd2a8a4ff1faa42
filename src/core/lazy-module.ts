import { lazy } from './lazy.js';

/**
 * A module loaded on first use, the way each build can: `require` in the
 * CommonJS build (which also works where `import()` is unavailable, such as
 * jest without VM modules), `import()` in the ESM build. Only for modules that
 * can be required (CommonJS packages, dual packages, this package's own files);
 * ESM-only packages go through `import()` alone.
 */
export function lazyModule<T>(required: () => T, imported: () => Promise<T>): () => Promise<T> {
  return lazy(async () => (typeof require === 'function' ? required() : imported()));
}
