import { MARK, beginMarker, endPrefix, promptPrefix, startMarker } from './marker-protocol.js';

/** How a framed command ended, as read from the stream. */
type MarkerEnd =
  /** `end`: the end marker after the command; `prompt`: bash returned to its prompt without it (aborted line, or printf unusable). */
  | { readonly via: 'end' | 'prompt'; readonly exitCode: number }
  /** Bash returned to its prompt but this call's frame never ran: the shell's state blocks it. */
  | { readonly via: 'lost' };

export interface ParseStep {
  /** Command output released by this chunk (may be empty). */
  readonly output: string;
  /** True when output released by earlier steps was frame noise (e.g. a user's `set -x` trace): drop it. */
  readonly discardEarlier?: boolean;
  /** Set once, on the chunk that completed the command. */
  readonly end?: MarkerEnd;
}

/** `$?` is at most 3 digits; anything longer is not one of our markers. */
const MAX_STATUS_DIGITS = 3;
const NONCE = /^[0-9a-f]{0,16}$/;
/** `P<secret>:` is followed by at most 16 hex, `:`, 3 digits and the closing mark. */
const MAX_PROMPT_TAIL = 16 + 1 + MAX_STATUS_DIGITS + 1;

/**
 * Bytes shaped like any marker (`\x1f`, a marker kind, hex, digits and
 * colons, `\x1f`) that are not this call's: a stale or rewritten frame
 * write (a shadowed printf), never shown as output.
 */
const FRAME_SHAPED = /^\x1f[SEBPR][0-9a-f:]{0,40}\x1f/;
/** The data ends inside what may still become a frame-shaped sequence. */
const FRAME_SHAPED_PREFIX = /^\x1f(?:[SEBPR][0-9a-f:]{0,40})?$/;

type Match = { readonly kind: 'start'; readonly length: number } | { readonly kind: 'end'; readonly length: number; readonly end: MarkerEnd };

/**
 * Incremental reader of one framed command's stream. Everything before the
 * first start (`S<nonce>`) or begin (`B<secret>`) marker — echo, prompts,
 * stale markers of earlier calls — is discarded. After a begin marker, the
 * start marker may still follow: what came between is frame noise and is
 * discarded (`discardEarlier`). Output is released as soon as it cannot be
 * the beginning of a marker, so a marker split across chunks is held back
 * only for its own length. Text that resembles a marker but does not carry
 * this call's nonce (or the shell's secret) is ordinary output.
 */
export class MarkerParser {
  private readonly start: string;
  private readonly begin: string;
  private readonly end: string;
  private readonly prompt: string;
  private carry = '';
  private begun = false;
  /** Begun on the begin marker only: the start marker may still come. */
  private tentative = false;
  private finished = false;
  /** What followed the last end marker in its chunk, kept for `reopen`. */
  private afterEnd = '';

  constructor(
    readonly nonce: string,
    promptSecret: string,
    options: { alreadyStarted?: boolean } = {},
  ) {
    this.start = startMarker(nonce);
    this.begin = beginMarker(promptSecret);
    this.end = endPrefix(nonce);
    this.prompt = promptPrefix(promptSecret);
    this.begun = options.alreadyStarted ?? false;
  }

  /** True once a start or begin marker was seen: bash runs the line. */
  get started(): boolean {
    return this.begun;
  }

  get done(): boolean {
    return this.finished;
  }

  /**
   * Reads on after an end marker the host could not confirm (the shell was
   * not back at its prompt: the marker may be forged). Returns the step for
   * what followed that marker in its chunk; later chunks go to `push`.
   */
  reopen(): ParseStep {
    if (!this.finished) return { output: '' };
    this.finished = false;
    const rest = this.afterEnd;
    this.afterEnd = '';
    return this.push(rest);
  }

  push(chunk: string): ParseStep {
    if (this.finished) return { output: '' };
    let data = this.carry + chunk;
    this.carry = '';
    if (!this.begun) {
      const at = this.firstOpening(data);
      if (at === undefined) {
        // Keep a tail that may be the beginning of a split marker.
        const keep = Math.max(this.start.length, this.begin.length) - 1;
        this.carry = data.slice(Math.max(0, data.length - keep));
        return { output: '' };
      }
      this.begun = true;
      this.tentative = data.startsWith(this.begin, at);
      data = data.slice(at + (this.tentative ? this.begin.length : this.start.length));
    }
    return this.scan(data);
  }

  private firstOpening(data: string): number | undefined {
    const s = data.indexOf(this.start);
    const b = data.indexOf(this.begin);
    if (s < 0 && b < 0) return undefined;
    if (s < 0) return b;
    if (b < 0) return s;
    return Math.min(s, b);
  }

  private scan(data: string): ParseStep {
    let output = '';
    let discardEarlier = false;
    let from = 0;
    for (;;) {
      const at = data.indexOf(MARK, from);
      if (at < 0) return this.step(output + data, discardEarlier);
      const match = this.matchAt(data, at);
      if (match === 'partial') {
        this.carry = data.slice(at);
        return this.step(output + data.slice(0, at), discardEarlier);
      }
      if (match === undefined) {
        const rest = data.slice(at);
        if (FRAME_SHAPED_PREFIX.test(rest)) {
          this.carry = rest;
          return this.step(output + data.slice(0, at), discardEarlier);
        }
        const shaped = FRAME_SHAPED.exec(rest)?.[0].length;
        // Its closing byte may open one of this call's markers, which wins.
        const closing = shaped === undefined ? undefined : this.matchAt(data, at + shaped - 1);
        if (closing === 'partial') {
          this.carry = rest;
          return this.step(output + data.slice(0, at), discardEarlier);
        }
        if (shaped !== undefined && closing === undefined) {
          output += data.slice(0, at);
          data = data.slice(at + shaped);
          from = 0;
        } else {
          from = at + 1;
        }
        continue;
      }
      if (match.kind === 'end') {
        this.finished = true;
        this.afterEnd = data.slice(at + match.length);
        return { ...this.step(output + data.slice(0, at), discardEarlier), end: match.end };
      }
      // A start marker after the begin marker: everything since was the frame's own noise.
      this.tentative = false;
      output = '';
      discardEarlier = true;
      data = data.slice(at + match.length);
      from = 0;
    }
  }

  private step(output: string, discardEarlier: boolean): ParseStep {
    return discardEarlier ? { output, discardEarlier } : { output };
  }

  /** A complete marker at `at`, `partial` when the data ends inside a possible one, else undefined. */
  private matchAt(data: string, at: number): Match | 'partial' | undefined {
    const rest = data.slice(at);
    // Only while the start marker may still follow a begin marker; later, both are ordinary text.
    if (this.tentative) {
      if (rest.startsWith(this.start)) return { kind: 'start', length: this.start.length };
      if (this.start.startsWith(rest)) return 'partial';
    }
    const end = this.statusAfter(rest, this.end);
    if (end !== undefined) return end === 'partial' ? end : { kind: 'end', length: end.length, end: { via: 'end', exitCode: end.status } };
    return this.promptAt(rest);
  }

  /** `<prefix><digits>\x1f` at the start of `rest`. */
  private statusAfter(rest: string, prefix: string): { status: number; length: number } | 'partial' | undefined {
    if (rest.length < prefix.length) return prefix.startsWith(rest) ? 'partial' : undefined;
    if (!rest.startsWith(prefix)) return undefined;
    let i = prefix.length;
    while (i < rest.length && i - prefix.length <= MAX_STATUS_DIGITS && rest[i]! >= '0' && rest[i]! <= '9') i++;
    const digits = rest.slice(prefix.length, i);
    if (digits.length > MAX_STATUS_DIGITS) return undefined;
    if (i === rest.length) return 'partial';
    return rest[i] === MARK && digits !== '' ? { status: Number(digits), length: i + 1 } : undefined;
  }

  /** `P<secret>:<nonce>:<digits>\x1f`: this call's nonce ends it, any other says its frame never ran. */
  private promptAt(rest: string): Match | 'partial' | undefined {
    if (rest.length < this.prompt.length) return this.prompt.startsWith(rest) ? 'partial' : undefined;
    if (!rest.startsWith(this.prompt)) return undefined;
    const colon = rest.indexOf(':', this.prompt.length);
    if (colon < 0) return rest.length - this.prompt.length <= MAX_PROMPT_TAIL ? 'partial' : undefined;
    const seen = rest.slice(this.prompt.length, colon);
    if (!NONCE.test(seen)) return undefined;
    const status = this.statusAfter(rest.slice(colon + 1), '');
    if (status === undefined || status === 'partial') return status;
    const length = colon + 1 + status.length;
    const end: MarkerEnd = seen === this.nonce ? { via: 'prompt', exitCode: status.status } : { via: 'lost' };
    return { kind: 'end', length, end };
  }
}
