import type { RedactionRule } from './redaction-rules.js';
import { holdFrom } from './rule-scan.js';

/** Longest mark or probe a seam check must cover (the built-ins' are at most 7 characters). */
const SEAM_CHARS = 64;

/**
 * How many trailing characters of the text decide what a stream holds back
 * (the longest rule), or undefined when the rules rule out the ASCII fast
 * path: a user pattern has no literal to search for, so only its regex can
 * tell whether a chunk is free of matches.
 */
export function asciiWindow(rules: readonly RedactionRule[]): number | undefined {
  let window = 0;
  for (const rule of rules) {
    if (rule.literals === undefined && rule.leads === undefined) return undefined;
    const needles = [...(rule.marks ?? []), ...(rule.probes ?? rule.leads ?? [])];
    if (needles.some((needle) => needle.length > SEAM_CHARS)) return undefined;
    window = Math.max(window, rule.maxLength);
  }
  return window;
}

/**
 * The redaction stream's step for an ASCII chunk, searched as bytes: when no
 * rule can match anywhere in `carry + chunk`, nothing is replaced and the
 * step emits `carry + chunk` up to the returned cut unchanged, holding the
 * rest. The cut is the one `holdFrom` gives the whole text, found in its last
 * `window` characters (no rule looks further back). Undefined when a rule
 * may match: the caller decodes and pushes.
 */
export function asciiCut(carry: string, chunk: Buffer, rules: readonly RedactionRule[], window: number): number | undefined {
  const length = chunk.length;
  // The carry and the seam into the chunk: a needle may start in one and end in the other.
  const seam = carry === '' ? '' : carry + chunk.toString('latin1', 0, Math.min(length, SEAM_CHARS));
  for (const rule of rules) {
    if (rule.literals !== undefined) {
      // A literal may be longer than the seam: its own seam reaches `maxLength - 1` into the chunk.
      const literalSeam = carry === '' ? '' : carry + chunk.toString('latin1', 0, Math.min(length, rule.maxLength - 1));
      // Searched as bytes: decoding every chunk to a string only to search it cost a copy and its garbage.
      if (matches(rule.regex, literalSeam) || rule.literals.some((literal) => literalIn(chunk, literal))) return undefined;
    } else if (mayMatchBytes(seam, chunk, rule)) {
      return undefined;
    }
  }
  const total = carry.length + length;
  const size = Math.min(window, total);
  const from = length - size;
  const tail = from >= 0 ? chunk.toString('latin1', from) : carry.slice(carry.length + from) + chunk.toString('latin1');
  let cut = size;
  for (const rule of rules) cut = Math.min(cut, holdFrom(tail, rule));
  return total - size + cut;
}
function matches(regex: RegExp, text: string): boolean {
  if (text === '') return false;
  regex.lastIndex = 0;
  const found = regex.test(text);
  regex.lastIndex = 0;
  return found;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** Whether `literal` occurs in the ASCII `chunk` (one with a non-ASCII character cannot). */
function literalIn(chunk: Buffer, literal: string): boolean {
  return literal === '' || (ASCII_ONLY.test(literal) && chunk.includes(literal, 0, 'latin1'));
}

/** `mayMatch` of `seam + chunk` without joining them (marks and probes are ASCII). */
function mayMatchBytes(seam: string, chunk: Buffer, rule: RedactionRule): boolean {
  const has = (needle: string): boolean => chunk.includes(needle, 0, 'latin1') || (seam !== '' && seam.includes(needle));
  if (rule.marks !== undefined && !rule.marks.every(has)) return false;
  return (rule.probes ?? rule.leads ?? []).some(has);
}
