import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { JsonSchema } from './tool-contract.js';

/**
 * JSON Schema of a tool's argument class, generated from its class-validator
 * decorators. The pipeline rejects any key the (adjusted) schema does not
 * show, so the schema says `additionalProperties: false`.
 */
export function argsSchema(argsClass: new () => object): JsonSchema {
  const schema = targetConstructorToSchema(argsClass) as JsonSchema;
  return { type: 'object', properties: {}, ...schema, additionalProperties: false };
}

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
