import type { JsonSchema } from './config-checks.js';
import { CONFIG_KEYS, isSection } from './config-keys.js';

/**
 * The JSON Schema (draft 2020-12) of a composition file, built from the
 * loader's own key table, so every key the loader accepts is in it and no
 * other. The package ships the same document as `docs/config.schema.json`
 * (for editors: `# yaml-language-server: $schema=…`). The loader stays the
 * judge: a few checks (protected paths, container mounts, Kubernetes names)
 * are finer than the schema says.
 */
export function configSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [key, entry] of Object.entries(CONFIG_KEYS)) {
    properties[key] = isSection(entry)
      ? { type: 'object', additionalProperties: false, properties: Object.fromEntries(Object.entries(entry.keys).map(([name, value]) => [name, value.schema])) }
      : entry.schema;
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'dsh-tools composition file',
    description: 'The YAML or JSON file of `dsh-tools --config` and of loadConfigFile(); every key: docs/configuration.md.',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}
