import { plainToInstance } from 'class-transformer';
import * as classValidator from 'class-validator';
import type { ValidationError } from 'class-validator';
import { applyArgDecorators } from './arg-decorators.js';
import { ToolError } from './tool-contract.js';
import { toPlainObject, type KnownArguments } from './plain-args.js';

// class-validator is loaded now: the argument classes' constraints take effect.
applyArgDecorators(classValidator);

/**
 * Turns raw model arguments into an instance of the tool's argument class.
 * A key the schema does not show is an error naming the valid ones
 * (plain-args.ts); nothing is coerced, so a number given as a string fails
 * its constraint. Throws `ToolError` with the first problem.
 */
export function validateArgs<A extends object>(argsClass: new () => A, raw: unknown, known: KnownArguments): A {
  const plain = toPlainObject(raw, known);
  const instance = plainToInstance(argsClass, plain, { enableImplicitConversion: false });
  // Synchronous: no argument class uses async constraints, and this runs on every call.
  const errors = classValidator.validateSync(instance, {
    whitelist: true,
    forbidUnknownValues: false,
    validationError: { target: false, value: true },
  });
  const message = firstMessage(errors);
  if (message !== undefined) throw new ToolError(message);
  return instance;
}

function firstMessage(errors: ValidationError[]): string | undefined {
  for (const error of errors) {
    const constraint = error.constraints ? Object.values(error.constraints)[0] : undefined;
    if (constraint) return constraint;
    const nested = firstMessage(error.children ?? []);
    if (nested) return nested;
  }
  return undefined;
}
