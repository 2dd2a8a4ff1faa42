import { mayHaveEscapes, scanEscapes, stripAnsi } from './ansi.js';

/** A line without a newline longer than this is passed on as it is (binary dumps, minified files). */
const MAX_PENDING_LINE_CHARS = 8192;

const CR_BYTE = 0x0d;
const ESC_BYTE = 0x1b;
const LF_BYTE = 0x0a;
const NO_BYTES = Buffer.alloc(0);

/** What `pushAscii` shows: `text`, then `bytes`. */
export interface CollapsedAscii {
  readonly text: string;
  readonly bytes: Buffer;
}

/** Model-visible line when progress updates were dropped. */
export const collapsedNotice = (updates: number): string => `[collapsed ${updates} progress updates]`;

/**
 * Terminal output as a model should read it, incrementally: ANSI/OSC escape
 * sequences removed, `\r\n` as `\n`, and of a line redrawn with bare `\r`
 * only its final text. One *update* is one non-blank drawing of a line that
 * a later non-blank drawing replaced (`10%\r50%\r100%\n` keeps `100%` and
 * counts 2); blank drawings (a `\r` before `\n`, a line cleared with spaces
 * or escapes) are not counted. Memory is one pending line, at most
 * `MAX_PENDING_LINE_CHARS` plus the last drawing.
 */
export class LineCollapser {
  /** The drawing in progress (raw: escapes not yet removed). */
  private segment = '';
  /** The last finished non-blank drawing of the current line. */
  private shown: string | undefined;
  private dropped = 0;
  /** A drain already showed part of the current line. */
  private midLine = false;
  /** ...and a `\r` has since ended that drawing: a new drawing starts on a new line. */
  private redrawnAfterDrain = false;
  /** `shown` is the rest of the drawing a read showed part of (so it continues that line). */
  private shownContinues = false;

  /** Updates dropped so far. */
  get collapsedUpdates(): number {
    return this.dropped;
  }

  push(text: string): string {
    if (text === '') return '';
    if (this.shown === undefined && !this.redrawnAfterDrain && !text.includes('\r') && !mayHaveEscapes(text) && !mayHaveEscapes(this.segment)) {
      return this.pushPlain(text);
    }
    let out = '';
    let at = 0;
    const length = text.length;
    while (at < length) {
      const cr = text.indexOf('\r', at);
      const lf = text.indexOf('\n', at);
      const next = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      if (next < 0) {
        this.segment += text.slice(at);
        break;
      }
      this.segment += text.slice(at, next);
      if (next === lf) out += this.finishLine() + '\n';
      else this.closeDrawing();
      at = next + 1;
    }
    if (this.segment.length > MAX_PENDING_LINE_CHARS) out += this.showPending(false);
    return out;
  }

  /**
   * `push(head + body)` for ASCII `body` bytes: on a plain line with no `\r`
   * or escape, whole lines of `body` are shown as the bytes they are, with no
   * decoding or re-encoding (the bulk of a build log or a binary-free dump).
   */
  pushAscii(head: string, body: Buffer): CollapsedAscii {
    if (head === '' && body.length === 0) return { text: '', bytes: NO_BYTES };
    const plain = this.shown === undefined && !this.redrawnAfterDrain && !mayHaveEscapes(this.segment);
    // `body` is ASCII (the caller's check): no C1 control can be in it.
    if (!plain || head.includes('\r') || mayHaveEscapes(head) || body.includes(CR_BYTE) || body.includes(ESC_BYTE)) {
      return { text: this.push(head + body.toString('latin1')), bytes: NO_BYTES };
    }
    // The same steps as `pushPlain`, the newline searched in the bytes first.
    const newline = body.lastIndexOf(LF_BYTE);
    if (newline >= 0) {
      const text = this.segment + head;
      this.segment = body.toString('latin1', newline + 1);
      this.midLine = false;
      return { text, bytes: body.subarray(0, newline + 1) };
    }
    if (head.includes('\n')) return { text: this.pushPlain(head + body.toString('latin1')), bytes: NO_BYTES };
    if (this.segment.length + head.length + body.length <= MAX_PENDING_LINE_CHARS) {
      this.segment += head + body.toString('latin1');
      return { text: '', bytes: NO_BYTES };
    }
    const text = this.segment + head;
    this.segment = '';
    this.midLine = true;
    return { text, bytes: body };
  }

  /** A reader wants everything up to now: shows the current drawing of the unfinished line. */
  drain(): string {
    return this.showPending(true);
  }

  /** The stream ended: the unfinished line's final drawing, without a newline. */
  end(): string {
    if (this.segment === '' && this.shown === undefined) return '';
    return this.finishLine();
  }

  /** Plain text (no `\r`, no escapes, no drawing pending): lines pass through untouched. */
  private pushPlain(text: string): string {
    // V8's `indexOf` is a memchr and its `lastIndexOf` a plain loop: a long line without newline is searched once, fast.
    const newline = text.indexOf('\n') < 0 ? -1 : text.lastIndexOf('\n');
    if (newline < 0) {
      if (this.segment.length + text.length <= MAX_PENDING_LINE_CHARS) {
        this.segment += text;
        return '';
      }
      // Too long to hold, and plain: shown as it is, and the line goes on.
      const out = this.segment + text;
      this.segment = '';
      this.midLine = true;
      return out;
    }
    const out = this.segment + text.slice(0, newline + 1);
    this.segment = text.slice(newline + 1);
    this.midLine = false;
    return out;
  }

  private closeDrawing(): void {
    const drawing = withoutEscapes(this.segment);
    this.segment = '';
    const continues = this.midLine && !this.redrawnAfterDrain;
    if (this.midLine) this.redrawnAfterDrain = true;
    if (drawing.trim() === '') return;
    if (this.shown !== undefined) this.dropped++;
    this.shown = drawing;
    this.shownContinues = continues;
  }

  /** The final drawing of the current line (without its newline); resets the line. */
  private finishLine(): string {
    const drawing = this.takeDrawing();
    this.segment = '';
    this.midLine = false;
    this.redrawnAfterDrain = false;
    return drawing;
  }

  /**
   * The line's current drawing (the segment, or the last non-blank one when
   * the segment is blank), with a newline before it when it redraws text a
   * read already showed (its continuation, `…\r\n`, gets none); forgets the
   * remembered drawing. The caller resets the segment.
   */
  private takeDrawing(): string {
    const drawing = withoutEscapes(this.segment);
    let continues = this.midLine && !this.redrawnAfterDrain;
    let current: string;
    if (drawing.trim() !== '') {
      if (this.shown !== undefined) this.dropped++;
      current = drawing;
    } else {
      current = this.shown ?? drawing;
      if (this.shown !== undefined) continues = this.shownContinues;
    }
    this.shown = undefined;
    this.shownContinues = false;
    return this.midLine && !continues && current !== '' ? `\n${current}` : current;
  }

  /**
   * Shows the unfinished line's current drawing now (a read, or a line too
   * long to hold); later text continues it, and a later redraw starts a new
   * line. On a read, an escape sequence cut at the end stays pending.
   */
  private showPending(keepCutEscape: boolean): string {
    let held = '';
    if (keepCutEscape && mayHaveEscapes(this.segment)) {
      const cut = scanEscapes(this.segment).unfinishedAt;
      if (cut !== undefined) {
        held = this.segment.slice(cut);
        this.segment = this.segment.slice(0, cut);
      }
    }
    const shown = this.takeDrawing();
    this.segment = held;
    if (shown !== '' || !this.midLine) {
      this.midLine = shown !== '';
      this.redrawnAfterDrain = false;
    }
    return shown;
  }
}

/** Most text has no escape (ESC or a C1 control) at all: `stripAnsi` checks before it scans. */
function withoutEscapes(text: string): string {
  return stripAnsi(text);
}

/** The whole-text form of `LineCollapser` (terminal text already complete). */
export function collapseTerminalText(raw: string): string {
  const collapser = new LineCollapser();
  return collapser.push(raw) + collapser.end();
}
