import { isCredential } from './credential-names.js';
import { BUILTIN_RULES, literalRule, userPatternRule, type RedactionRule } from './redaction-rules.js';
import { RuleRedactionStream, redactWith } from './redaction-stream.js';
import { MIN_SECRET_CHARS, type RedactionConfig, type RedactionStream, type Redactor } from './redactor.js';

/** The identity stream of an inactive redactor. */
const PASS_THROUGH: RedactionStream = Object.freeze({
  push: (text: string) => text,
  drain: () => '',
  end: () => '',
});

/**
 * The default redactor: the values of the server's credential-shaped
 * variables (by name, the one list `child-env.ts` scrubs with, so a name
 * passed through `executor.allowEnv` is still redacted), configured values
 * and patterns, and the built-in patterns — one combined alternation for
 * every literal (longest first) and one regular expression per pattern.
 */
export class PatternRedactor implements Redactor {
  readonly active: boolean;
  private readonly rules: readonly RedactionRule[];

  /** `config` must be resolved (see `resolveRedactionConfig`); `env` is read once, here. */
  constructor(config: RedactionConfig, env: NodeJS.ProcessEnv = process.env) {
    const labels = new Map<string, string>();
    if (config.environment) {
      for (const [name, value] of Object.entries(env)) {
        if (value === undefined || value.length < MIN_SECRET_CHARS || labels.has(value)) continue;
        if (isCredential(name, value)) labels.set(value, `[redacted:${name}]`);
      }
    }
    for (const value of config.values) {
      if (value.length >= MIN_SECRET_CHARS && !labels.has(value)) labels.set(value, '[redacted]');
    }
    const rules: RedactionRule[] = [];
    const literals = literalRule(labels);
    if (literals) rules.push(literals);
    rules.push(...config.patterns.map(userPatternRule));
    if (config.builtins) rules.push(...BUILTIN_RULES);
    this.rules = Object.freeze(rules);
    this.active = rules.length > 0;
  }

  redact(text: string): string {
    return this.active ? redactWith(text, this.rules) : text;
  }

  stream(): RedactionStream {
    return this.active ? new RuleRedactionStream(this.rules) : PASS_THROUGH;
  }
}
