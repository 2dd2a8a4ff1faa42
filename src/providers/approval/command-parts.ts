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
