import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TreeSitter from 'web-tree-sitter';
import { lazy } from '../../../core/lazy.js';
import { OPTIONAL_PACKAGES, requirePackages } from '../../../core/optional-packages.js';

export type SyntaxNode = TreeSitter.Node;

/** Parses one command line into tree-sitter's bash syntax tree; `release` frees it (it lives in WebAssembly memory). */
interface BashParser {
  parse(line: string): { readonly root: SyntaxNode; release(): void } | undefined;
}

/** Who needs the parser's packages, in the message that names them. */
export const COMMAND_RULE_PARSER = 'the command-rule parser';

const GRAMMAR = 'tree-sitter-bash/tree-sitter-bash.wasm';

/**
 * tree-sitter's bash grammar on web-tree-sitter, loaded on the first check
 * and shared afterwards (a failed load is retried on the next check). Both
 * packages ship their `.wasm` files, so nothing is fetched. The CommonJS build
 * (and CommonJS jest, which has no import()) requires web-tree-sitter; the ESM
 * build imports it.
 */
export const loadBashParser: () => Promise<BashParser> = lazy(async () => {
  const ts = await loadRuntime();
  let runtimeDir: string | undefined;
  await ts.Parser.init({
    // Called with the directory web-tree-sitter was loaded from: the anchor
    // from which an ES module (without `require`) resolves the grammar.
    locateFile: (file: string, directory: string) => ((runtimeDir = directory), `${directory}${file}`),
  });
  const resolver = typeof require === 'function' ? require : createRequire(path.join(runtimeDir ?? process.cwd(), 'package.json'));
  // Bytes, not a path: given a path, web-tree-sitter import()s fs, which CommonJS jest cannot.
  const bash = await ts.Language.load(await readFile(resolver.resolve(GRAMMAR)));
  const parser = new ts.Parser();
  parser.setLanguage(bash);
  return {
    parse(line) {
      const tree = parser.parse(line);
      if (!tree) return undefined;
      return { root: tree.rootNode, release: () => tree.delete() };
    },
  };
});

async function loadRuntime(): Promise<typeof TreeSitter> {
  // Optional peer dependencies: say which to install rather than "Cannot find module".
  requirePackages(COMMAND_RULE_PARSER, OPTIONAL_PACKAGES.commandRules);
  if (typeof require === 'function') return require('web-tree-sitter') as typeof TreeSitter;
  const module = (await import('web-tree-sitter')) as typeof TreeSitter & { default?: typeof TreeSitter };
  return module.Parser ? module : module.default!;
}
