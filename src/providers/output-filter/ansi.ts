/**
 * Terminal control sequences, so PTY output can be shown as plain text (see
 * docs/model-view.md), removed in one left-to-right pass that reads them as
 * a terminal would: strings (OSC, DCS, SOS, PM, APC; 7-bit `ESC ]` … and
 * 8-bit C1 `0x9d` …) run to their terminator (ST as `ESC \` or `0x9c`, BEL
 * for OSC); an `ESC` inside one cancels it and starts the next sequence,
 * which is read in turn, so stripping never joins the pieces of a hostile
 * string into a new sequence. CSI (`ESC [`, `0x9b`), two- and three-byte
 * escapes, and every other C1 control go too. Nothing of an escape is left.
 */

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const ST = 0x9c;
/** C1 codes that open a string: DCS, SOS, OSC, PM, APC. */
const C1_STRING = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
const C1_CSI = 0x9b;
const OSC_C1 = 0x9d;
/** What may start a sequence: ESC or any C1 control. */
const SEQUENCE_START = /[\u001b\u0080-\u009f]/g;
const HAS_SEQUENCE_START = /[\u001b\u0080-\u009f]/;

/** Where an unfinished sequence makes the rest of the text undecidable. */
const UNFINISHED = -1;

interface EscapeScan {
  /** The text without its control sequences (an unfinished one at the end removed too). */
  readonly text: string;
  /** Where a sequence still open at the end starts: a streaming caller holds it back until more text comes. */
  readonly unfinishedAt?: number;
}

/** True when `text` may hold a control sequence (an ESC or a C1 control). */
export function mayHaveEscapes(text: string): boolean {
  return HAS_SEQUENCE_START.test(text);
}

/** `text` without terminal control sequences, and where one still open at the end starts. */
export function scanEscapes(text: string): EscapeScan {
  let out = '';
  let plainFrom = 0;
  SEQUENCE_START.lastIndex = 0;
  for (let match = SEQUENCE_START.exec(text); match; match = SEQUENCE_START.exec(text)) {
    const at = match.index;
    out += text.slice(plainFrom, at);
    const end = sequenceEnd(text, at);
    if (end === UNFINISHED) return { text: out, unfinishedAt: at };
    plainFrom = end;
    SEQUENCE_START.lastIndex = end;
  }
  return { text: out + text.slice(plainFrom) };
}

/** `text` without terminal control sequences (a sequence cut short at the end is removed too). */
export function stripAnsi(text: string): string {
  return mayHaveEscapes(text) ? scanEscapes(text).text : text;
}

/** Index after the sequence that starts at `at`, or UNFINISHED when the text ends inside it. */
function sequenceEnd(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code !== ESC) {
    if (code === C1_CSI) return csiEnd(text, at + 1);
    if (C1_STRING.has(code)) return stringEnd(text, at + 1, code === OSC_C1);
    return at + 1;
  }
  if (at + 1 >= text.length) return UNFINISHED;
  const next = text[at + 1];
  if (next === '[') return csiEnd(text, at + 2);
  if (next === ']') return stringEnd(text, at + 2, true);
  if (next === 'P' || next === 'X' || next === '^' || next === '_') return stringEnd(text, at + 2, false);
  // ESC, intermediates (0x20–0x2f), one final byte (0x30–0x7e).
  let i = at + 1;
  while (i < text.length && isIn(text.charCodeAt(i), 0x20, 0x2f)) i++;
  if (i >= text.length) return UNFINISHED;
  // Anything else (a control, another ESC) cancels the escape and is read on its own.
  return isIn(text.charCodeAt(i), 0x30, 0x7e) ? i + 1 : i;
}

/** Parameters and intermediates (0x20–0x3f), then a final byte (0x40–0x7e); any other byte cancels it. */
function csiEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && isIn(text.charCodeAt(i), 0x20, 0x3f)) i++;
  if (i >= text.length) return UNFINISHED;
  return isIn(text.charCodeAt(i), 0x40, 0x7e) ? i + 1 : i;
}

/** A string's body up to ST (`ESC \` or 0x9c), BEL when `belEnds`; CAN/SUB abort it, another ESC cancels it. */
function stringEnd(text: string, from: number, belEnds: boolean): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === ST || code === CAN || code === SUB || (belEnds && code === BEL)) return i + 1;
    if (code !== ESC) continue;
    if (i + 1 >= text.length) return UNFINISHED;
    return text[i + 1] === '\\' ? i + 2 : i;
  }
  return UNFINISHED;
}

function isIn(code: number, low: number, high: number): boolean {
  return code >= low && code <= high;
}
