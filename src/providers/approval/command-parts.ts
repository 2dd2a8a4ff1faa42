/**
 * Splits a shell command line into the simple commands a policy must judge
 * one by one: the parts of `a && b`, `a || b`, `a; b`, `a | b`, `a & b` and
 * newlines, the insides of `( … )` subshells and `{ …; }` groups, and of
 * every `$( … )`, `<( … )`, `>( … )` and backtick substitution (also inside
 * double quotes, where bash still runs them). Quotes are respected; leading
 * `NAME=value` assignments are dropped so they cannot hide the command word.
 * Returns undefined when the line cannot be parsed (an unterminated quote,
 * substitution or subshell): the caller must then fall to its strictest rule.
 */
export function commandParts(line: string): string[] | undefined {
  const parts: string[] = [];
  const end = scan(line, 0, undefined, parts);
  if (end === undefined || end !== line.length) return undefined;
  return parts.map(withoutAssignments).filter((part) => part !== '');
}

type Closer = ')' | '`' | undefined;

/**
 * Scans from `start` until `closer` (or the end), pushing each finished simple
 * command to `parts`. Returns the index just past the closer, or undefined on
 * an unterminated construct.
 */
function scan(text: string, start: number, closer: Closer, parts: string[]): number | undefined {
  let current = '';
  const flush = () => {
    const trimmed = current.trim().replace(/\s+/g, ' ');
    if (trimmed !== '' && trimmed !== '{' && trimmed !== '}') parts.push(trimmed.replace(/^\{ /, '').replace(/ \}$/, ''));
    current = '';
  };
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (closer !== undefined && c === closer) {
      flush();
      return i + 1;
    }
    if (c === '\\') {
      current += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return undefined;
      current += text.slice(i, close + 1);
      i = close + 1;
      continue;
    }
    if (c === '"') {
      const next = scanDoubleQuoted(text, i + 1, parts);
      if (next === undefined) return undefined;
      current += text.slice(i, next);
      i = next;
      continue;
    }
    if (c === '`') {
      const next = scan(text, i + 1, '`', parts);
      if (next === undefined) return undefined;
      current += '`…`';
      i = next;
      continue;
    }
    if ((c === '$' || c === '<' || c === '>') && text[i + 1] === '(' && text[i + 2] !== '(') {
      const next = scan(text, i + 2, ')', parts);
      if (next === undefined) return undefined;
      current += `${c}(…)`;
      i = next;
      continue;
    }
    if (c === '$' && text.startsWith('$((', i)) {
      // Arithmetic: no command runs inside unless it holds a substitution, which the scan still finds.
      const next = scan(text, i + 3, ')', parts);
      if (next === undefined || text[next] !== ')') return undefined;
      current += '$((…))';
      i = next + 1;
      continue;
    }
    if (c === '(' && current.trim() === '') {
      const next = scan(text, i + 1, ')', parts);
      if (next === undefined) return undefined;
      i = next;
      continue;
    }
    if (isRedirection(text, i)) {
      current += c;
      i += 1;
      continue;
    }
    if (c === ';' || c === '\n' || c === '|' || c === '&') {
      flush();
      i += text[i + 1] === c || (c === '|' && text[i + 1] === '&') || (c === ';' && text[i + 1] === '&') ? 2 : 1;
      continue;
    }
    if (c === ')') return undefined;
    current += c;
    i += 1;
  }
  if (closer !== undefined) return undefined;
  flush();
  return i;
}

/** Scans a double-quoted string body from `start`; substitutions inside are parts too. Returns the index past the closing quote. */
function scanDoubleQuoted(text: string, start: number, parts: string[]): number | undefined {
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '"') return i + 1;
    if (c === '`') {
      const next = scan(text, i + 1, '`', parts);
      if (next === undefined) return undefined;
      i = next;
      continue;
    }
    if (c === '$' && text[i + 1] === '(') {
      const next = scan(text, i + 2, ')', parts);
      if (next === undefined) return undefined;
      i = next;
      continue;
    }
    i += 1;
  }
  return undefined;
}

/** `2>&1`, `<&0`, `&>file`, `>|file`: an `&` or `|` that belongs to a redirection, not a command separator. */
function isRedirection(text: string, i: number): boolean {
  const c = text[i];
  const previous = text[i - 1];
  if (c === '&') return previous === '>' || previous === '<' || text[i + 1] === '>';
  if (c === '|') return previous === '>';
  return false;
}

/** `A=1 B=two cmd args` → `cmd args` (assignments only prefix the command they precede). */
function withoutAssignments(part: string): string {
  return part.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|[^\s'"]*)\s*)+/, '').trim();
}
