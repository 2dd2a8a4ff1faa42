/** One word of a simple command as the checker sees it. */
export interface CommandWord {
  /** The value after quote removal; absent when it depends on an expansion or substitution. */
  readonly literal?: string;
  /** An unquoted glob, brace or tilde: the word may become other words. */
  readonly expands: boolean;
  /** The word as written. */
  readonly source: string;
  /** For `NAME=value` (a declaration's argument, or `env`'s): the variable's name as written. */
  readonly assigns?: string;
}

/** What a command line holds for the rules: the simple commands to judge, and what the checker could not follow. */
export interface CommandAnalysis {
  readonly commands: readonly (readonly CommandWord[])[];
  /** Why the line is not fully understood, one reason per construct (empty when it is). */
  readonly unknown: readonly string[];
}

/** Variables whose value bash or common programs run as code, or that redirect which program a name runs. */
const CODE_VARIABLE = /^(?:PATH|PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|GLOBIGNORE|EXECIGNORE|BASH_LOADABLES_PATH|LD_[A-Z_]+|BASH_FUNC_.*|LESSOPEN|LESSCLOSE|[A-Z_]*(?:EDITOR|PAGER|VISUAL|_COMMAND|_ASKPASS|_SSH))$/;

/** Why assigning `name` is not understood, or undefined when it is harmless to the checker. */
export function assignmentConcern(name: string): string | undefined {
  const base = name.replace(/\[.*$/s, '');
  if (CODE_VARIABLE.test(base)) return `assigning ${base} changes what later commands run`;
  return undefined;
}

/** `/usr/bin/env` → `env`: wrappers and opaque commands are recognised by their base name. */
export function baseName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** The text rules are matched against: literal words as plain or single-quoted text, other words as written. */
export function commandText(words: readonly CommandWord[]): string {
  return words.map((word) => (word.literal === undefined ? word.source.replace(/\s+/g, ' ') : quoteForRules(word.literal))).join(' ');
}

function quoteForRules(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,^-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
