/**
 * Renders a rejected value for an error message: strings quoted, numbers as
 * written (`NaN`, `-1`), everything else as JSON where possible.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === undefined) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function' || typeof value === 'symbol') return typeof value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** The message of anything thrown: an Error's message (without a leading `Error: `), a string, else its JSON. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message.replace(/^Error: /, '') || error.name;
  if (typeof error === 'string') return error || 'unknown error';
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
