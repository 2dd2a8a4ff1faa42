import { LineCollapser, type CollapsedAscii } from './line-collapse.js';
import type { RedactionStream, Redactor } from './redactor.js';

/** One step of a `TextFilter`: the redacted text (for spill files) and the collapsed text (for the model). */
export interface FilteredText {
  /** Redacted, escape codes and redraws kept. */
  readonly redacted: string;
  /** Redacted, then collapsed (see `LineCollapser`). */
  readonly clean: string;
}

/** `FilteredText` of an ASCII chunk, each part as text followed by bytes of the chunk (see `TextFilter.pushAscii`). */
export interface FilteredAscii {
  readonly redacted: CollapsedAscii;
  readonly clean: CollapsedAscii;
}

const NOTHING: FilteredText = Object.freeze({ redacted: '', clean: '' });

/**
 * The one output filter of every backend (one-shot, background, persistent):
 * redaction first (so a secret drawn on a progress line is caught before the
 * line is dropped), then line collapse. Without a redactor only collapse runs.
 */
export class TextFilter {
  private readonly redaction: RedactionStream | undefined;
  private readonly collapser = new LineCollapser();

  constructor(redactor?: Redactor) {
    this.redaction = redactor?.active ? redactor.stream() : undefined;
  }

  get collapsedUpdates(): number {
    return this.collapser.collapsedUpdates;
  }

  push(text: string): FilteredText {
    if (text === '') return NOTHING;
    const redacted = this.redaction ? this.redaction.push(text) : text;
    return { redacted, clean: this.collapser.push(redacted) };
  }

  /**
   * `push` of an ASCII chunk (decoded, it is the same text) that leaves
   * unchanged bytes as bytes: the redaction stream passes the chunk when no
   * secret can be in it, and the collapser passes plain lines. Undefined,
   * with nothing changed, when the caller must decode the chunk and `push`.
   */
  pushAscii(chunk: Buffer): FilteredAscii | undefined {
    let head = '';
    let body = chunk;
    if (this.redaction) {
      const pass = this.redaction.passAscii?.(chunk);
      if (pass === undefined) return undefined;
      head = pass.head;
      body = chunk.subarray(0, pass.end);
    }
    return { redacted: { text: head, bytes: body }, clean: this.collapser.pushAscii(head, body) };
  }

  /** A mid-run read: everything that can be shown now. */
  drain(): FilteredText {
    const redacted = this.redaction ? this.redaction.drain() : '';
    return { redacted, clean: this.collapser.push(redacted) + this.collapser.drain() };
  }

  /** The stream ended: everything. */
  end(): FilteredText {
    const redacted = this.redaction ? this.redaction.end() : '';
    return { redacted, clean: this.collapser.push(redacted) + this.collapser.end() };
  }
}
