import type { CommandWord } from './command-words.js';

/** The options a wrapper command accepts before the command it runs. */
export interface OptionSpec {
  /** Short options without a value. */
  readonly flags?: string;
  /** Short options that take a value (the rest of the cluster, or the next word). */
  readonly values?: string;
  /** Short options whose value can only be attached (`-i{}`, `-l5`). */
  readonly attached?: string;
  readonly longFlags?: readonly string[];
  /** Long options that take a value (`--user root` or `--user=root`). */
  readonly longValues?: readonly string[];
  /** Long options whose value can only follow `=`. */
  readonly longAttached?: readonly string[];
  /** `-5` (nice's old form). */
  readonly numeric?: boolean;
}

/**
 * Where the wrapped command starts: the index of the first word after the
 * options, or why that cannot be told. An option the spec does not know is
 * unknown rather than guessed, because guessing whether it takes a value
 * would shift which word is the command.
 */
export function skipOptions(wrapper: string, args: readonly CommandWord[], spec: OptionSpec): { start: number; flags: string[] } | { unknown: string } {
  const flags: string[] = [];
  let i = 0;
  while (i < args.length) {
    const word = args[i]!;
    const text = word.literal;
    if (text === undefined) {
      if (word.source.startsWith('-')) return { unknown: `\`${wrapper}\` option \`${word.source}\` is not a literal word` };
      return { start: i, flags };
    }
    if (!text.startsWith('-') || text === '-') return { start: i, flags };
    if (text === '--') return { start: i + 1, flags };
    flags.push(text);
    if (text.startsWith('--')) {
      const name = text.includes('=') ? text.slice(0, text.indexOf('=')) : text;
      if (spec.longValues?.includes(name)) i += text.includes('=') ? 1 : 2;
      else if (spec.longFlags?.includes(name) && !text.includes('=')) i += 1;
      else if (spec.longAttached?.includes(name)) i += 1;
      else return { unknown: `\`${wrapper}\` option \`${text}\` is not known to the checker` };
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(text)) {
      i += 1;
      continue;
    }
    const taken = cluster(text, spec);
    if (taken === undefined) return { unknown: `\`${wrapper}\` option \`${text}\` is not known to the checker` };
    i += taken;
  }
  return { start: i, flags };
}

/** How many words a short-option cluster like `-nu` takes (1 or 2), or undefined for a letter the spec lacks. */
function cluster(text: string, spec: OptionSpec): number | undefined {
  for (let at = 1; at < text.length; at += 1) {
    const letter = text[at]!;
    if (spec.values?.includes(letter)) return at === text.length - 1 ? 2 : 1;
    if (spec.attached?.includes(letter)) return 1;
    if (!spec.flags?.includes(letter)) return undefined;
  }
  return 1;
}
