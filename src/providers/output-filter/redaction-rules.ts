/**
 * What the redactor looks for. A rule is one global regular expression with a
 * bound on its match length (which bounds the text a stream holds back), and
 * optionally the literal leads every match starts with, so a stream holds
 * back only from a lead instead of the whole bound.
 */
export interface RedactionRule {
  /** Global (`g`), with `d` when `group` is set. */
  readonly regex: RegExp;
  /** Longest match, in characters. */
  readonly maxLength: number;
  /** The text that replaces a match (or its `group`). */
  readonly replacement: (matched: string) => string;
  /** Only this capture group is replaced (the password of a URL). */
  readonly group?: number;
  /** Literal text every match starts with (case-sensitive). */
  readonly leads?: readonly string[];
  /**
   * Substrings every match contains *within its lead* (a stream also uses
   * them to find a lead that may still grow), searched before the rule's regex runs
   * (default: `leads`). Few, and starting with a rare character: V8's search
   * is a memchr on the first character (`BEGIN` costs 30× less than
   * `-----BEGIN` on log text, and `xox` in 200 MB of `x` stops everywhere).
   */
  readonly probes?: readonly string[];
  /**
   * Substrings every *match* contains (anywhere, not only in its lead), each
   * searched before the probes: one cheap pass that finds none rules out the
   * rule for the whole text. Single characters rare in logs and progress
   * output (`@`, `_`), because a probe such as `://` stops on every `:` of a
   * compiler's `file:line:col`.
   */
  readonly marks?: readonly string[];
  /** For a lead at the end of the known text: could the text from it still grow into a match? */
  readonly unfinished?: (rest: string) => boolean;
  /** The literal rule: its values, so a stream holds back only a suffix that begins one. */
  readonly literals?: readonly string[];
}

const REDACTED = (): string => '[redacted]';

/** Longest private key block body held back while its END line has not arrived. */
const MAX_KEY_BODY = 8192;

/** Built-in value patterns, on by default; each is listed in docs/model-view.md. */
export const BUILTIN_RULES: readonly RedactionRule[] = Object.freeze([
  {
    // A private key block through its END line; a block cut short (no END) loses its base64 body.
    regex: new RegExp(
      `-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[\\s\\S]{0,${MAX_KEY_BODY}}?-----END[A-Z0-9 ]{0,40}PRIVATE KEY-----|[A-Za-z0-9+/=\\s:,-]{0,${MAX_KEY_BODY}})`,
      'g',
    ),
    maxLength: MAX_KEY_BODY + 130,
    replacement: REDACTED,
    leads: ['-----BEGIN'],
    probes: ['BEGIN'],
    unfinished: (rest) => !/-----END[A-Z0-9 ]{0,40}PRIVATE KEY-----/.test(rest),
  },
  {
    // scheme://user:<password>@host: only the password goes.
    regex: /:\/\/([^\s:/@]{1,256}):([^\s/@]{1,256})@/dg,
    maxLength: 3 + 256 + 1 + 256 + 1,
    replacement: REDACTED,
    group: 2,
    leads: ['://'],
    marks: ['@'],
    unfinished: (rest) => /^:\/\/[^\s:/@]*(?::[^\s/@]*)?$/.test(rest),
  },
  {
    regex: /gh[pousr]_[A-Za-z0-9]{20,255}/g,
    maxLength: 259,
    replacement: REDACTED,
    leads: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    probes: ['gh'],
    marks: ['_'],
    unfinished: (rest) => /^gh[pousr]_[A-Za-z0-9]*$/.test(rest),
  },
  {
    regex: /github_pat_[A-Za-z0-9_]{22,255}/g,
    maxLength: 266,
    replacement: REDACTED,
    leads: ['github_pat_'],
    probes: ['_pat_'],
    unfinished: (rest) => /^github_pat_[A-Za-z0-9_]*$/.test(rest),
  },
  {
    regex: /A[KS]IA[0-9A-Z]{16}/g,
    maxLength: 20,
    replacement: REDACTED,
    leads: ['AKIA', 'ASIA'],
    probes: ['IA'],
    unfinished: (rest) => /^A[KS]IA[0-9A-Z]{0,15}$/.test(rest),
  },
  {
    regex: /xox[abprs]-[A-Za-z0-9-]{10,250}/g,
    maxLength: 255,
    replacement: REDACTED,
    leads: ['xox'],
    probes: ['ox'],
    marks: ['x'],
    unfinished: (rest) => /^xox(?:[abprs](?:-[A-Za-z0-9-]*)?)?$/.test(rest),
  },
  {
    regex: /([Aa]uthorization|AUTHORIZATION):[ \t]*(?:[Bb]earer|BEARER)[ \t]+([A-Za-z0-9._~+/=-]{1,2048})/dg,
    maxLength: 2100,
    replacement: REDACTED,
    group: 2,
    leads: ['Authorization:', 'authorization:', 'AUTHORIZATION:'],
    probes: ['zation:', 'ZATION:'],
    unfinished: (rest) => {
      const after = rest.replace(/^[A-Za-z]+:[ \t]*/, '');
      return 'bearer'.startsWith(after.toLowerCase()) || /^bearer[ \t]*[A-Za-z0-9._~+/=-]*$/i.test(after);
    },
  },
]);

/** Longest user-pattern match a stream catches across chunks. */
const USER_PATTERN_WINDOW = 1024;

/** A user pattern: matches are caught across chunks up to `USER_PATTERN_WINDOW` characters. */
export function userPatternRule(source: string): RedactionRule {
  return { regex: new RegExp(source, 'g'), maxLength: USER_PATTERN_WINDOW, replacement: REDACTED };
}

/**
 * Every literal secret in one alternation, longest first so an overlapping
 * shorter secret never wins. `labels` maps a value to its replacement.
 */
export function literalRule(labels: ReadonlyMap<string, string>): RedactionRule | undefined {
  if (labels.size === 0) return undefined;
  const values = [...labels.keys()].sort((a, b) => b.length - a.length);
  return {
    regex: new RegExp(values.map(escapeRegExp).join('|'), 'g'),
    maxLength: values[0]!.length,
    replacement: (matched) => labels.get(matched) ?? '[redacted]',
    literals: values,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
