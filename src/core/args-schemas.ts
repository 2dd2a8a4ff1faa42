import { readFileSync } from 'node:fs';
import { lazyModule } from './lazy-module.js';
import type { JsonSchema } from './tool-contract.js';

type ArgsClass = new () => object;
type Generator = typeof import('./tool-schema.js');

/**
 * Where `npm run build` writes the generated schemas of the package's own
 * argument classes, keyed by class name (scripts/cache-arg-schemas.mjs); a
 * test checks they equal freshly generated ones.
 */
export const ARG_SCHEMAS_FILE = 'arg-schemas.json';

let cacheFile: URL | undefined;

/**
 * Points the host at the build-time schemas. The CLI calls it (it knows where
 * the build put the file); an embedding process generates schemas on first use.
 */
export function useArgSchemaCache(file: URL): void {
  cacheFile = file;
  cache = undefined;
}

/** The build-time schemas; empty when none was named or the file is absent (running from source). */
function readCache(): Map<string, JsonSchema> {
  if (cacheFile === undefined) return new Map();
  try {
    const text = readFileSync(cacheFile, 'utf8');
    return new Map(Object.entries(JSON.parse(text) as Record<string, JsonSchema>));
  } catch {
    return new Map();
  }
}

let cache: Map<string, JsonSchema> | undefined;
const loadGenerator = lazyModule<Generator>(() => require('./tool-schema.js'), () => import('./tool-schema.js'));
let generator: Generator | undefined;

function cached(argsClass: ArgsClass): JsonSchema | undefined {
  cache ??= readCache();
  return cache.get(argsClass.name);
}

/**
 * Loads the schema generator (all of class-validator) unless every class has
 * a cached schema; `argsSchemaOf` answers synchronously after it.
 */
export async function prepareArgsSchemas(classes: readonly ArgsClass[]): Promise<void> {
  if (classes.every((argsClass) => cached(argsClass) !== undefined)) return;
  generator = await loadGenerator();
}

/** The schema of an argument class: the build-time copy, else generated now. */
export function argsSchemaOf(argsClass: ArgsClass): JsonSchema {
  const schema = cached(argsClass);
  if (schema !== undefined) return structuredClone(schema);
  if (generator === undefined) throw new Error(`no schema for ${argsClass.name}: prepareArgsSchemas() was not awaited`);
  return generator.argsSchema(argsClass);
}
