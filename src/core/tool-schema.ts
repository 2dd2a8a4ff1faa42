import * as classValidator from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { applyArgDecorators } from './arg-decorators.js';
import type { JsonSchema } from './tool-contract.js';

// class-validator is loaded now: the argument classes' constraints take effect.
applyArgDecorators(classValidator);

export { argumentNames, withoutProperty } from './schema-properties.js';

/**
 * JSON Schema of a tool's argument class, generated from its class-validator
 * decorators. The pipeline rejects any key the (adjusted) schema does not
 * show, so the schema says `additionalProperties: false`. Loads all of
 * class-validator: the host reaches it through `args-schemas.ts`, which
 * prefers the schemas cached at build time.
 */
export function argsSchema(argsClass: new () => object): JsonSchema {
  const schema = targetConstructorToSchema(argsClass) as JsonSchema;
  return { type: 'object', properties: {}, ...schema, additionalProperties: false };
}
