import type { RedactionRule } from './redaction-rules.js';

/** False when `text` cannot hold a match of `rule`: a native substring search is far cheaper than the rule's regex. */
export function mayMatch(text: string, rule: RedactionRule): boolean {
  if (rule.marks !== undefined && !rule.marks.every((mark) => text.includes(mark))) return false;
  const probes = rule.probes ?? rule.leads;
  return probes === undefined || probes.some((probe) => text.includes(probe));
}

/**
 * Where `buf` stops being safe to emit for `rule` while more text may come:
 * any match starting before it is entirely inside `buf`. For literals, from
 * the longest suffix that begins one; with leads, from a lead closer than
 * `maxLength` to the end, or a lead cut at the end; otherwise the last
 * `maxLength - 1` characters. Usually nothing is held, so the next chunk
 * is not copied onto a carry.
 */
export function holdFrom(buf: string, rule: RedactionRule): number {
  const length = buf.length;
  if (rule.literals !== undefined) return unsafeFrom(buf, rule);
  const leads = rule.leads;
  if (leads === undefined) return length - (rule.maxLength - 1);
  let from = length;
  for (const lead of leads) from = Math.min(from, length - partialSuffix(buf, lead));
  const window = Math.max(0, length - rule.maxLength + 1);
  // Every lead contains a probe, so a window without any probe has no lead.
  if (!(rule.probes ?? leads).some((probe) => buf.indexOf(probe, window) >= 0)) return from;
  for (const lead of leads) {
    const at = buf.indexOf(lead, window);
    if (at >= 0 && at < from) from = at;
  }
  return from;
}

/** Longest suffix of `buf` that is a proper prefix of `word`. */
function partialSuffix(buf: string, word: string): number {
  const last = buf.charCodeAt(buf.length - 1);
  for (let k = Math.min(word.length - 1, buf.length); k > 0; k--) {
    if (word.charCodeAt(k - 1) === last && buf.endsWith(word.slice(0, k))) return k;
  }
  return 0;
}

/**
 * For a mid-run read: from where `buf` could still be the start of a match
 * of `rule` (the precise minimum, so a waiting prompt or a quiet server's
 * last line is shown at once). User patterns cannot be analysed: their
 * unfinished last line stays held.
 */
export function unsafeFrom(buf: string, rule: RedactionRule): number {
  const length = buf.length;
  if (rule.literals !== undefined) {
    let from = length;
    for (const literal of rule.literals) from = Math.min(from, length - partialSuffix(buf, literal));
    return from;
  }
  const leads = rule.leads;
  if (leads === undefined || rule.unfinished === undefined) return buf.lastIndexOf('\n') + 1;
  let from = length;
  for (const lead of leads) {
    from = Math.min(from, length - partialSuffix(buf, lead));
    for (let at = buf.indexOf(lead); at >= 0 && at < from; at = buf.indexOf(lead, at + 1)) {
      if (rule.unfinished(buf.slice(at))) {
        from = at;
        break;
      }
    }
  }
  return from;
}
