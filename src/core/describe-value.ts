/** An error quotes at most this many characters of a rejected value or name; past it, the start and the length. */
const QUOTE_LIMIT = 200;

/**
 * Renders a rejected value for an error message: strings quoted, numbers as
 * written (`NaN`, `-1`), everything else as JSON where possible. A rendering
 * longer than `QUOTE_LIMIT` is cut (`"abc…" (100002 characters)`): an error
 * must not carry a 100 KB argument back into the model's context.
 */
export function describeValue(value: unknown): string {
  return bounded(rendered(value));
}

/** `text` whole when short, else its first `QUOTE_LIMIT` characters, an ellipsis and its length. */
export function bounded(text: string): string {
  if (text.length <= QUOTE_LIMIT) return text;
  // Never cut a surrogate pair in half.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(QUOTE_LIMIT - 1)) ? QUOTE_LIMIT - 1 : QUOTE_LIMIT;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

function rendered(value: unknown): string {
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
