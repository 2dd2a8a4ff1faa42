/**
 * The order tools are listed in: `localeCompare`, the default locale's
 * collation. Its first use loads ICU's collator (about 8 ms of start-up). For
 * names of lowercase letters and `_` under an English, C or POSIX locale that
 * collation is the code-point order, which needs no collator; any other name
 * or locale goes through `localeCompare` as before.
 */
const PLAIN_NAME = /^[a-z_]*$/;
/** Locale values (C, POSIX or English, with an optional codeset) whose collation orders plain names by code point. */
const CODE_POINT_LOCALE = /^(?:C|POSIX|en(?:_[A-Z]{2})?)?(?:\.[A-Za-z0-9-]+)?$/;
/** Where ICU takes the default locale from (whichever is set first); every one set must qualify. */
const LOCALE_VARIABLES = ['LC_ALL', 'LC_MESSAGES', 'LANG'] as const;

/** True when the default locale orders plain names by code point. */
export function codePointOrderHolds(env: NodeJS.ProcessEnv = process.env): boolean {
  return LOCALE_VARIABLES.every((name) => env[name] === undefined || CODE_POINT_LOCALE.test(env[name]!));
}

/** A comparator equal to `a.localeCompare(b)` in sign, for sorting tool names. */
export function toolNameOrder(env: NodeJS.ProcessEnv = process.env): (a: string, b: string) => number {
  const fast = codePointOrderHolds(env);
  return (a, b) => (fast && PLAIN_NAME.test(a) && PLAIN_NAME.test(b) ? (a < b ? -1 : a > b ? 1 : 0) : a.localeCompare(b));
}
