import { MARK, endPrefix, promptPrefix, startMarker } from './marker-protocol.js';

/** How a framed command ended, as read from the stream. */
export interface MarkerEnd {
  readonly exitCode: number;
  /** `end`: the end marker after the command; `prompt`: bash returned to its prompt without it (aborted line). */
  readonly via: 'end' | 'prompt';
}

export interface ParseStep {
  /** Command output released by this chunk (may be empty). */
  readonly output: string;
  /** Set once, on the chunk that completed the command. */
  readonly end?: MarkerEnd;
}

/** `$?` is at most 3 digits; anything longer is not one of our markers. */
const MAX_STATUS_DIGITS = 3;

/**
 * Incremental reader of one framed command's stream. Everything before the
 * start marker (echo, prompts, stale markers of earlier calls) is discarded;
 * output after it is released as soon as it cannot be the beginning of a
 * marker, so a marker split across chunks is held back only for its own
 * length. Text that resembles a marker but does not carry this call's nonce
 * (or the shell's prompt secret) is ordinary output.
 */
export class MarkerParser {
  private readonly start: string;
  private readonly prefixes: readonly [string, MarkerEnd['via']][];
  private carry = '';
  private begun = false;
  private finished = false;

  constructor(nonce: string, promptSecret: string, options: { alreadyStarted?: boolean } = {}) {
    this.start = startMarker(nonce);
    this.prefixes = [
      [endPrefix(nonce), 'end'],
      [promptPrefix(promptSecret), 'prompt'],
    ];
    this.begun = options.alreadyStarted ?? false;
  }

  /** True once the start marker was seen: the command is running. */
  get started(): boolean {
    return this.begun;
  }

  get done(): boolean {
    return this.finished;
  }

  push(chunk: string): ParseStep {
    if (this.finished) return { output: '' };
    let data = this.carry + chunk;
    this.carry = '';
    if (!this.begun) {
      const at = data.indexOf(this.start);
      if (at < 0) {
        this.carry = data.slice(Math.max(0, data.length - (this.start.length - 1)));
        return { output: '' };
      }
      this.begun = true;
      data = data.slice(at + this.start.length);
    }
    return this.scan(data);
  }

  private scan(data: string): ParseStep {
    let from = 0;
    for (;;) {
      const at = data.indexOf(MARK, from);
      if (at < 0) return { output: data };
      const match = this.matchAt(data, at);
      if (match === 'partial') {
        this.carry = data.slice(at);
        return { output: data.slice(0, at) };
      }
      if (match !== undefined) {
        this.finished = true;
        return { output: data.slice(0, at), end: match };
      }
      from = at + 1;
    }
  }

  /** A complete marker at `at`, `partial` when the data ends inside a possible one, else undefined. */
  private matchAt(data: string, at: number): MarkerEnd | 'partial' | undefined {
    const rest = data.length - at;
    for (const [prefix, via] of this.prefixes) {
      if (rest < prefix.length) {
        if (prefix.startsWith(data.slice(at))) return 'partial';
        continue;
      }
      if (!data.startsWith(prefix, at)) continue;
      let i = at + prefix.length;
      let digits = '';
      while (i < data.length && digits.length <= MAX_STATUS_DIGITS && data[i]! >= '0' && data[i]! <= '9') {
        digits += data[i];
        i++;
      }
      if (digits.length > MAX_STATUS_DIGITS) continue;
      if (i === data.length) return 'partial';
      if (data[i] === MARK && digits !== '') return { exitCode: Number(digits), via };
    }
    return undefined;
  }
}
