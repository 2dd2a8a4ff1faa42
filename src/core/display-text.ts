/**
 * Text shown to a person (cards, log lines, approval prompts, `doctor` and
 * `prompt` output) must not drive their terminal or reorder what they read.
 * Every character that is not visible text is written as its JSON escape
 * (`\n`, `\r`, `\t`, `\b`, `\f`, otherwise `\u001b`-style, astral characters
 * as their surrogate pair `\udb40\udc01`): C0 controls, DEL, C1 controls
 * (`\u009b` is a CSI on many terminals), format characters (bidi marks and
 * embeddings `\u200e` `\u202e` `\u2066`…, zero-width characters, the tag
 * block), line and paragraph separators (`\u2028`, `\u2029`) and lone
 * surrogates. This is the only file that decides that form.
 *
 * Backslashes of free text are kept as they are (paths, regular expressions):
 * in free text `\u001b` may be an escape or those six characters. Where the
 * difference matters (a command to approve) use `quoteForDisplay`, which is
 * a JSON string literal and therefore unambiguous.
 */

/** C0, DEL, C1 (`Cc`), format characters (`Cf`), U+2028/2029 (`Zl`, `Zp`), lone surrogates (`Cs`). */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const UNSAFE_BUT_NEWLINE = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
/** What `JSON.stringify` leaves raw inside strings (it escapes C0 and lone surrogates itself; C0 outside strings is whitespace). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

/** Printable ASCII (and `\n` where kept) needs no escape: most log lines and cards, checked with a cheap scan first. */
const PLAIN = /^[\x20-\x7e]*$/;
const PLAIN_WITH_NEWLINES = /^[\x20-\x7e\n]*$/;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** The JSON escape of one (possibly astral) character. */
function escapeChar(char: string): string {
  const short = SHORT[char];
  if (short !== undefined) return short;
  let out = '';
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

interface DisplayOptions {
  /** Keep `\n` as a line break (multi-line renderings that indent their own lines). Default false. */
  readonly keepNewlines?: boolean;
}

/** `text` with every control, format and separator character escaped; safe to write to a terminal or a log line. */
export function escapeForDisplay(text: string, options: DisplayOptions = {}): string {
  const value = String(text);
  if ((options.keepNewlines ? PLAIN_WITH_NEWLINES : PLAIN).test(value)) return value;
  return value.replace(options.keepNewlines ? UNSAFE_BUT_NEWLINE : UNSAFE, escapeChar);
}

/**
 * JSON text with the characters `JSON.stringify` leaves raw (DEL, C1, format
 * characters, U+2028/2029) escaped too: the same JSON value, safe to show.
 */
export function escapeJsonForDisplay(json: string): string {
  return json.replace(UNSAFE_IN_JSON, escapeChar);
}

/** `text` as a JSON string literal, every unsafe character escaped: quotes, backticks and newlines cannot break out of it. */
export function quoteForDisplay(text: string): string {
  return escapeJsonForDisplay(JSON.stringify(String(text)));
}

/**
 * Lines as bash reads them: `a\nb` and `a\nb\n` are 2. Only `\n` ends a
 * line; `\r` and U+2028 do not (for bash they are ordinary characters,
 * and `escapeForDisplay` shows them as escapes).
 */
export function lineCount(text: string): number {
  const breaks = text.split('\n').length - 1;
  return Math.max(1, breaks + 1 - (text.endsWith('\n') ? 1 : 0));
}
