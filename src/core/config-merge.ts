import { describeValue } from './describe-value.js';

/** `invalid <label> config: <key> <problem>`: the one shape of every provider config error. */
export function configError(label: string, key: string, problem: string): Error {
  return new Error(`invalid ${label} config: ${key} ${problem}`);
}

/**
 * Merges a partial provider config over its defaults. Keys set to undefined
 * count as absent; an unknown key fails loudly, because a misspelt limit
 * silently falling back to its default is worse than a refused start.
 * The caller then checks each value of the merged record.
 */
export function mergeConfig(
  label: string,
  defaults: object,
  partial: unknown,
  known: ReadonlySet<string> = new Set(Object.keys(defaults)),
): Record<string, unknown> {
  if (partial === undefined) return { ...defaults };
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) {
    throw configError(label, 'config', `must be an object, got ${describeValue(partial)}`);
  }
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(partial)) {
    if (!known.has(key)) throw configError(label, key, 'is not a known key');
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}
