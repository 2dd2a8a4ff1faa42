import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { ToolError } from './tool-contract.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Turns raw model arguments into an instance of the tool's argument class.
 * Unknown keys are dropped (never forwarded); nothing is coerced, so a number
 * given as a string fails its constraint. Throws `ToolError` with the first
 * failing constraint's message.
 */
export function validateArgs<A extends object>(argsClass: new () => A, raw: unknown): A {
  const plain = toPlainObject(raw);
  const instance = plainToInstance(argsClass, plain, { enableImplicitConversion: false });
  // Synchronous: no argument class uses async constraints, and this runs on every call.
  const errors = validateSync(instance, {
    whitelist: true,
    forbidUnknownValues: false,
    validationError: { target: false, value: true },
  });
  const message = firstMessage(errors);
  if (message !== undefined) throw new ToolError(message);
  return instance;
}

function toPlainObject(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ToolError('invalid arguments: expected a JSON object');
  }
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    if (!FORBIDDEN_KEYS.has(key)) plain[key] = (raw as Record<string, unknown>)[key];
  }
  return plain;
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
