import { configError, mergeConfig } from '../../core/config-merge.js';
import { describeValue } from '../../core/describe-value.js';
import { DEFAULT_REDACTION_CONFIG, type RedactionConfig } from './redactor.js';

/**
 * Merges a partial `redact` config over the defaults and checks it; a
 * pattern that is not a valid regular expression fails here, at start.
 * Throws `invalid redact config: <key> ...`.
 */
export function resolveRedactionConfig(partial: Partial<RedactionConfig> | undefined = {}): RedactionConfig {
  const merged = mergeConfig('redact', DEFAULT_REDACTION_CONFIG, partial);
  const values = stringList(merged, 'values');
  const patterns = stringList(merged, 'patterns');
  for (const pattern of patterns) {
    try {
      new RegExp(pattern, 'g');
    } catch (error) {
      throw configError('redact', 'patterns', `has an invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
    }
  }
  for (const key of ['builtins', 'environment'] as const) {
    if (typeof merged[key] !== 'boolean') throw configError('redact', key, `must be true or false, got ${describeValue(merged[key])}`);
  }
  return Object.freeze({
    values: Object.freeze(values),
    patterns: Object.freeze(patterns),
    builtins: merged.builtins as boolean,
    environment: merged.environment as boolean,
  });
}

function stringList(merged: Record<string, unknown>, key: string): string[] {
  const value = merged[key];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '')) {
    throw configError('redact', key, `must be an array of non-empty strings, got ${describeValue(value)}`);
  }
  return [...value];
}
