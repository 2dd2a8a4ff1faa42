import { plainToInstance } from 'class-transformer';
import * as classValidator from 'class-validator';
import type { ValidationError } from 'class-validator';
import { applyArgDecorators } from './arg-decorators.js';
import { ToolError } from './tool-contract.js';
import { bounded } from './describe-value.js';
import { PROTO_KEY_STANDIN } from './proto-key.js';

// class-validator is loaded now: the argument classes' constraints take effect.
applyArgDecorators(classValidator);

/** The argument names a tool accepts: exactly the properties its (adjusted) schema shows. */
interface KnownArguments {
  readonly tool: string;
  readonly names: readonly string[];
  /** Hidden names the tool refuses with its own reason instead of the unknown-argument message. */
  readonly refusals?: Readonly<Record<string, string>>;
}

/**
 * Turns raw model arguments into an instance of the tool's argument class.
 * A key the schema does not show is an error naming the valid ones (a
 * misspelt `timeout_ms` must not silently run without a timeout); nothing is
 * coerced, so a number given as a string fails its constraint. Throws
 * `ToolError` with the first problem.
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

function toPlainObject(raw: unknown, known: KnownArguments): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ToolError('invalid arguments: expected a JSON object');
  }
  // Only names the schema shows are copied, so `__proto__` or `constructor` never reach the instance.
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    if (!known.names.includes(key)) {
      const refusal = known.refusals && Object.hasOwn(known.refusals, key) ? known.refusals[key] : undefined;
      throw new ToolError(refusal ?? unknownArgumentMessage(key === PROTO_KEY_STANDIN ? '__proto__' : key, known));
    }
    plain[key] = (raw as Record<string, unknown>)[key];
  }
  return plain;
}

function unknownArgumentMessage(key: string, known: KnownArguments): string {
  const valid = known.names.length > 0 ? known.names.join(', ') : '(none)';
  return `unknown argument ${bounded(JSON.stringify(key))} for ${known.tool}; valid arguments: ${valid}`;
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
