// The stdio server answers `initialize` while the MCP SDK still loads
// (src/mcp/early-initialize.ts). A value imported from the SDK by anything
// the serve command loads before that answer would make it wait for the
// whole SDK: start-up went from 429 to 620 ms once when the approval answerer
// and a capability helper did.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { SRC } from './source-tree.js';

/** Static imports that survive compilation: not `import type`, not a list of `type` names only. */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      const bindings = clause?.namedBindings;
      const onlyTypes = clause !== undefined && clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((element) => element.isTypeOnly);
      if (!onlyTypes) found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined && !statement.isTypeOnly) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return found;
}

/** Every file the early answer loads, with the packages each imports as values. */
function closure(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const imports = valueImports(file);
    seen.set(file, imports.filter((name) => !name.startsWith('.')));
    for (const name of imports) if (name.startsWith('.')) visit(path.resolve(path.dirname(file), name.replace(/\.js$/, '.ts')));
  };
  visit(entry);
  return seen;
}

/** What `serve` loads before the stdio server's first answer (src/cli/serve.command.ts, src/mcp/stdio-server.ts). */
const BEFORE_FIRST_ANSWER = ['mcp/early-initialize.ts', 'mcp/approvals/elicitation-answerer.ts', 'mcp/serve-lifecycle.ts', 'mcp/stdio-server.ts', 'cli/host-from-options.ts'];

it.each(BEFORE_FIRST_ANSWER)('%s reaches no value of the MCP SDK through its static imports', (entry) => {
  const files = closure(path.join(SRC, entry));
  expect(files.has(path.join(SRC, entry))).toBe(true);
  const offenders = [...files].flatMap(([file, packages]) =>
    packages.filter((name) => name.startsWith('@modelcontextprotocol/')).map((name) => `${path.relative(SRC, file)} → ${name}`),
  );
  expect(offenders).toEqual([]);
});
