import type { ServiceIdentifier } from 'inversify';

/**
 * Incremental redaction of one text stream. Text is emitted only once no
 * secret can still be completed by later text, so a secret split across two
 * chunks is caught; what could still be the start of one is held back.
 */
export interface RedactionStream {
  /** Feeds the next piece of the stream; returns the redacted text that is safe to show now. */
  push(text: string): string;
  /**
   * A reader wants everything up to now (a mid-run read): returns the held
   * text except a suffix that could begin a secret (that stays held).
   */
  drain(): string;
  /** The stream ended: returns everything still held, redacted. */
  end(): string;
  /**
   * Optional fast path for an ASCII chunk: when the stream would emit it
   * unchanged, `push` without decoding it. Returns where the emitted part of
   * the chunk ends (it follows `head`, the text held before), or undefined,
   * with nothing changed, when the chunk must be decoded and pushed.
   */
  passAscii?(chunk: Buffer): AsciiPass | undefined;
}

/** What `passAscii` emitted: `head`, then the chunk's bytes `[0, end)`. */
export interface AsciiPass {
  readonly head: string;
  readonly end: number;
}

/**
 * Replaces secrets in model-visible text: `[redacted:<NAME>]` for the value
 * of a credential-shaped variable of the server's environment, `[redacted]`
 * for configured values, configured patterns and the built-in patterns.
 *
 * Obligations: `redact` and streams never throw; a redacted text never
 * contains a configured secret (of 6 or more characters) or a built-in match;
 * with `active` false both are the identity and callers may skip them.
 */
export interface Redactor {
  /** False when there is nothing to redact (no secrets, built-ins off). */
  readonly active: boolean;
  redact(text: string): string;
  stream(): RedactionStream;
}

export const Redactor: ServiceIdentifier<Redactor> = Symbol.for('dsh.Redactor');

/** What to redact (config key `redact`); defaults in `DEFAULT_REDACTION_CONFIG`. */
export interface RedactionConfig {
  /** Literal secrets (shorter than `MIN_SECRET_CHARS` are ignored). */
  readonly values: readonly string[];
  /** Regular expressions (JavaScript syntax); every match is redacted. */
  readonly patterns: readonly string[];
  /** The built-in patterns (private keys, URL passwords, GitHub/AWS/Slack tokens, bearer tokens). */
  readonly builtins: boolean;
  /** Redact the values of credential-shaped variables of the server's environment. */
  readonly environment: boolean;
}

export const DEFAULT_REDACTION_CONFIG: RedactionConfig = Object.freeze({
  values: Object.freeze([]) as readonly string[],
  patterns: Object.freeze([]) as readonly string[],
  builtins: true,
  environment: true,
});

export const RedactionConfig: ServiceIdentifier<Partial<RedactionConfig>> = Symbol.for('dsh.RedactionConfig');

/** Shorter values are too likely to be ordinary words or numbers to redact. */
export const MIN_SECRET_CHARS = 6;
