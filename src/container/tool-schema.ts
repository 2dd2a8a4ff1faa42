import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { JsonSchema } from './tool-contract.js';

/**
 * JSON Schema of a tool's argument class, generated from its class-validator
 * decorators. Extra keys are not rejected by the pipeline (they are dropped),
 * so the schema does not claim `additionalProperties: false`.
 */
export function argsSchema(argsClass: new () => object): JsonSchema {
  const schema = targetConstructorToSchema(argsClass) as JsonSchema;
  return { type: 'object', properties: {}, ...schema };
}

/** Removes one property (and its `required` entry) from an object schema. */
export function withoutProperty(schema: JsonSchema, name: string): JsonSchema {
  const properties = { ...(schema.properties as Record<string, unknown> | undefined) };
  delete properties[name];
  const required = (schema.required as string[] | undefined)?.filter((key) => key !== name);
  return { ...schema, properties, ...(required ? { required } : {}) };
}
