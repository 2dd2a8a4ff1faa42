import type { SyntaxNode } from './bash-grammar.js';

/** A word as bash would pass it after quote removal, when that is known without running anything. */
interface LiteralWord {
  readonly value: string;
  /** An unquoted `*`, `?`, `[`, `{…,…}` or leading `~`: the word may expand into other words. */
  readonly expands: boolean;
}

/**
 * The value of a word made only of literal text (plain words, `'…'`,
 * `"…"` without expansions, `$'…'`, and concatenations of those), or
 * undefined when the value depends on an expansion or substitution.
 */
export function literalWord(node: SyntaxNode): LiteralWord | undefined {
  switch (node.type) {
    case 'command_name':
      return node.namedChildCount === 1 ? literalWord(node.namedChild(0)!) : undefined;
    case 'word':
    case 'number':
      return plainWord(node.text);
    case 'raw_string':
      return { value: node.text.slice(1, -1), expands: false };
    case 'string':
      return doubleQuoted(node);
    case 'translated_string':
      return node.namedChildCount === 1 ? literalWord(node.namedChild(0)!) : undefined;
    case 'ansi_c_string': {
      const value = decodeAnsiC(node.text.slice(2, -1));
      return value === undefined ? undefined : { value, expands: false };
    }
    case 'concatenation': {
      let value = '';
      let expands = false;
      for (const part of node.children) {
        const literal = part.isNamed ? literalWord(part) : plainWord(part.text);
        if (literal === undefined) return undefined;
        value += literal.value;
        expands ||= literal.expands;
      }
      return { value, expands: expands || /\{[^}]*(,|\.\.)/.test(node.text) };
    }
    default:
      return undefined;
  }
}

/** An unquoted word: backslashes escape the next character, a backslash-newline vanishes. */
function plainWord(text: string): LiteralWord {
  let value = '';
  let expands = text.startsWith('~') || /\{[^}]*(,|\.\.)/.test(text);
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\\') {
      if (text[i + 1] !== '\n') value += text[i + 1] ?? '';
      i += 1;
    } else {
      if (c === '*' || c === '?' || c === '[') expands = true;
      value += c;
    }
  }
  return { value, expands };
}

function doubleQuoted(node: SyntaxNode): LiteralWord | undefined {
  let value = '';
  for (const part of node.namedChildren) {
    if (part.type !== 'string_content') return undefined;
    value += part.text.replace(/\\([\\"$`])|\\\n/g, (_, escaped: string | undefined) => escaped ?? '');
  }
  return { value, expands: false };
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** The body of `$'…'`; undefined for an escape this decoder does not know (the caller then treats the word as unknown). */
function decodeAnsiC(body: string): string | undefined {
  let value = '';
  for (let i = 0; i < body.length; i += 1) {
    const c = body[i]!;
    if (c !== '\\') {
      value += c;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) return undefined;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      value += simple;
      i += 1;
      continue;
    }
    const numeric = /^(?:([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|c(.))/.exec(body.slice(i + 1));
    if (!numeric) return undefined;
    const [all, octal, hex, u4, u8, control] = numeric;
    if (control !== undefined) value += String.fromCharCode(control.charCodeAt(0) & 0x1f);
    else {
      const code = parseInt(octal ?? hex ?? u4 ?? u8!, octal !== undefined ? 8 : 16);
      if (code > 0x10ffff) return undefined;
      value += String.fromCodePoint(code);
    }
    i += all.length;
  }
  return value;
}
