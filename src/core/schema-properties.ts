import type { JsonSchema } from './tool-contract.js';

/** The argument names a schema shows, in its order. */
export function argumentNames(schema: JsonSchema): string[] {
  return Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
}

/** Removes one property (and its `required` entry) from an object schema. */
export function withoutProperty(schema: JsonSchema, name: string): JsonSchema {
  const properties = { ...(schema.properties as Record<string, unknown> | undefined) };
  delete properties[name];
  const required = (schema.required as string[] | undefined)?.filter((key) => key !== name);
  return { ...schema, properties, ...(required ? { required } : {}) };
}
