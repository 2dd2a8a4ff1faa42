import { CONFIG_KEYS, isSection } from './config/config-keys.js';

/** Keys of the composition file that are not `localEnvironment` options. */
const ENGINE_KEYS = ['sandbox', 'container', 'kubernetes', 'serve'];

/** `localEnvironment`'s options: the file's keys without the engine sections. */
export const LOCAL_OPTION_KEYS: readonly string[] = Object.freeze(Object.keys(CONFIG_KEYS).filter((key) => !ENGINE_KEYS.includes(key)));

/** Sections checked here at composition (the others go through their provider's config merge). */
const UNCHECKED_SECTIONS = ['toolNames', 'audit', 'telemetry', 'sandbox'];

/** Spellings that moved, with where they went (docs/configuration.md). */
const MOVED: Readonly<Record<string, string>> = { sandboxMode: 'the sandbox mode is sandbox: { mode }' };

/**
 * Refuses an option object with a key the function does not know, at run
 * time: options parsed from JSON or YAML never met the TypeScript types, and
 * a misspelt or misplaced key must not be ignored. `sections` limits the keys
 * of nested mappings that the function itself reads.
 */
export function checkOptionKeys(
  fn: string,
  options: unknown,
  known: readonly string[],
  sections: Readonly<Record<string, readonly string[]>> = {},
): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new Error(`${fn}: options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  for (const [key, value] of Object.entries(options)) {
    if (!known.includes(key)) {
      const moved = MOVED[key] === undefined ? '' : `; ${MOVED[key]}`;
      throw new Error(`${fn}: ${key} is not a known option (known: ${known.join(', ')})${moved}`);
    }
    const entry = CONFIG_KEYS[key];
    const inner = sections[key] ?? (UNCHECKED_SECTIONS.includes(key) && entry !== undefined && isSection(entry) ? Object.keys(entry.keys) : undefined);
    if (inner === undefined || value === undefined) continue;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${fn}: ${key} must be an object`);
    const unknown = Object.keys(value).find((name) => !inner.includes(name));
    if (unknown !== undefined) throw new Error(`${fn}: ${key}.${unknown} is not a known option (known: ${inner.join(', ')})`);
  }
}
