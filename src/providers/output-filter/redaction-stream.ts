import { asciiCut, asciiWindow } from './redaction-ascii.js';
import type { RedactionRule } from './redaction-rules.js';
import type { AsciiPass, RedactionStream } from './redactor.js';
import { holdFrom, mayMatch, unsafeFrom } from './rule-scan.js';

/** One replacement: `[start, end)` of the text becomes `text`. */
interface Hit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** Every match of every rule, earliest first; of overlapping matches the earlier (then longer) one wins. */
function findHits(text: string, rules: readonly RedactionRule[]): Hit[] {
  const hits: Hit[] = [];
  for (const rule of rules) {
    if (!mayMatch(text, rule)) continue;
    const regex = rule.regex;
    regex.lastIndex = 0;
    let match: RegExpExecArray | null;
    while ((match = regex.exec(text)) !== null) {
      if (match[0].length === 0) {
        regex.lastIndex++;
        continue;
      }
      const group = rule.group;
      if (group === undefined) {
        hits.push({ start: match.index, end: match.index + match[0].length, text: rule.replacement(match[0]) });
      } else {
        const [start, end] = match.indices![group]!;
        hits.push({ start, end, text: rule.replacement(match[group]!) });
      }
    }
  }
  if (hits.length < 2) return hits;
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Hit[] = [];
  let reach = 0;
  for (const hit of hits) {
    if (hit.start < reach) continue;
    kept.push(hit);
    reach = hit.end;
  }
  return kept;
}

/** `text[0, upTo)` with every hit that ends by `upTo` replaced. */
function applyHits(text: string, hits: readonly Hit[], upTo: number): string {
  if (hits.length === 0) return upTo === text.length ? text : text.slice(0, upTo);
  let out = '';
  let at = 0;
  for (const hit of hits) {
    if (hit.end > upTo) break;
    out += text.slice(at, hit.start) + hit.text;
    at = hit.end;
  }
  return out + text.slice(at, upTo);
}

/** Moves `cut` past any hit that straddles it (such a hit is complete: see `holdFrom`). */
function settleCut(hits: readonly Hit[], cut: number): number {
  for (const hit of hits) {
    if (hit.start >= cut) break;
    if (hit.end > cut) cut = hit.end;
  }
  return cut;
}

export function redactWith(text: string, rules: readonly RedactionRule[]): string {
  if (text === '') return text;
  const hits = findHits(text, rules);
  return applyHits(text, hits, text.length);
}

/**
 * A redaction stream over fixed rules. Between pushes it holds at most the
 * longest rule's `maxLength - 1` characters (less with leads): that text
 * reaches the reader on the next push, a `drain()` or `end()`.
 */
export class RuleRedactionStream implements RedactionStream {
  private carry = '';
  private readonly window: number | undefined;

  constructor(private readonly rules: readonly RedactionRule[]) {
    this.window = asciiWindow(rules);
  }

  push(text: string): string {
    if (text === '') return '';
    const buf = this.carry === '' ? text : this.carry + text;
    let cut = buf.length;
    for (const rule of this.rules) cut = Math.min(cut, holdFrom(buf, rule));
    return this.emit(buf, Math.max(0, cut));
  }

  drain(): string {
    const buf = this.carry;
    if (buf === '') return '';
    let cut = buf.length;
    for (const rule of this.rules) cut = Math.min(cut, unsafeFrom(buf, rule));
    return this.emit(buf, Math.max(0, cut));
  }

  passAscii(chunk: Buffer): AsciiPass | undefined {
    if (this.window === undefined) return undefined;
    const carry = this.carry;
    const cut = asciiCut(carry, chunk, this.rules, this.window);
    if (cut === undefined) return undefined;
    if (cut < carry.length) {
      // Held from inside the old carry (a short chunk after a held lead): the chunk joins the carry.
      this.carry = carry.slice(cut) + chunk.toString('latin1');
      return { head: carry.slice(0, cut), end: 0 };
    }
    const end = cut - carry.length;
    this.carry = chunk.toString('latin1', end);
    return { head: carry, end };
  }

  end(): string {
    const buf = this.carry;
    this.carry = '';
    return redactWith(buf, this.rules);
  }

  private emit(buf: string, cut: number): string {
    const hits = findHits(buf, this.rules);
    const settled = settleCut(hits, cut);
    this.carry = settled === buf.length ? '' : buf.slice(settled);
    return applyHits(buf, hits, settled);
  }
}
