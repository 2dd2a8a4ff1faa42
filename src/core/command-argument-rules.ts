import { describeValue } from './describe-value.js';

// The rules every command argument obeys, with their one wording: the tools'
// argument decorators show them to the model, the executors' `ExecSpec.check`
// applies them to a request no decorator saw.

/** The message for a command that is not a non-blank string. */
export const NOT_A_COMMAND = 'invalid command: expected a non-empty string';

/** Why `command` cannot run, or undefined when it can: a non-blank string without NUL. */
export function invalidCommand(command: unknown): string | undefined {
  if (typeof command !== 'string' || command.trim() === '') return NOT_A_COMMAND;
  // spawn() would throw a TypeError deep inside; say what is wrong instead.
  if (command.includes('\0')) return 'invalid command: contains a NUL character';
  return undefined;
}

/** Why `value` is not a timeout for `field`, or undefined: a finite number of at least 1 ms (timers count whole milliseconds). */
export function invalidMilliseconds(field: string, value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    return `invalid ${field}: expected a positive number, got ${describeValue(value)}`;
  }
  if (value < 1) return `invalid ${field}: expected at least 1 millisecond, got ${describeValue(value)}`;
  return undefined;
}
