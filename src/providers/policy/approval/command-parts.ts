import { loadBashParser } from './bash-grammar.js';
import { analyzeSyntax } from './command-walk.js';
import type { CommandAnalysis } from './command-words.js';

/**
 * Parses a command line with bash's grammar and returns every simple command
 * it can run (see `analyzeSyntax`) and what the checker could not follow.
 * The parser loads on the first call; if it cannot load, the whole line is
 * unknown.
 */
export async function commandParts(line: string): Promise<CommandAnalysis> {
  const control = controlCharacter(line);
  if (control !== undefined) return { commands: [], unknown: [control] };
  let parser;
  try {
    parser = await loadBashParser();
  } catch (error) {
    return { commands: [], unknown: [`the bash parser did not load (${error instanceof Error ? error.message : String(error)})`] };
  }
  const tree = parser.parse(line);
  if (tree === undefined) return { commands: [], unknown: ['the bash parser returned no syntax tree'] };
  try {
    return analyzeSyntax(tree.root);
  } finally {
    tree.release();
  }
}

/**
 * A raw control character (other than tab, newline, and a carriage return
 * before a newline): bash takes it as text, but where the line is typed into a
 * terminal (input to the persistent shell) the terminal may act on it first
 * (`^U` erases, `\r` ends the line), so bash would read another line than the
 * one judged.
 */
function controlCharacter(line: string): string | undefined {
  const found = /[\x00-\x08\x0b-\x1f\x7f]/.exec(line.replace(/\r\n/g, '\n'));
  if (!found) return undefined;
  return `the line holds the control character U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}
