// Every name a source file exports is used somewhere else: by another source
// file, a package entry, a test or a benchmark. An export nothing imports is
// either dead code or API nobody documented; both go.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, SRC, sourceFiles } from './source-tree.js';

const DECLARED = /^export (?:declare )?(?:abstract )?(?:const|let|function\*?|async function|class|interface|type|enum) (\w+)/gm;
/** `export * from './x.js'` in a package entry makes every name of x public API. */
const STAR = /^export \* from '(\.[^']+)';$/gm;

const files = sourceFiles(SRC);
const readers = [...files, ...sourceFiles(path.join(ROOT, 'test')), ...sourceFiles(path.join(ROOT, 'bench'))];
const texts = new Map(readers.map((file) => [file, readFileSync(file, 'utf8')]));

function starExported(): Set<string> {
  const found = new Set<string>();
  const visit = (file: string): void => {
    for (const match of texts.get(file)!.matchAll(STAR)) {
      const target = path.resolve(path.dirname(file), match[1]!.replace(/\.js$/, '.ts'));
      if (found.has(target) || !texts.has(target)) continue;
      found.add(target);
      visit(target);
    }
  };
  for (const entry of ['index.ts', 'testing.ts', 'mcp.ts']) visit(path.join(SRC, entry));
  return found;
}

test('no source file exports a name that no other file uses', () => {
  const publicWhole = starExported();
  const unused: string[] = [];
  for (const file of files) {
    if (publicWhole.has(file)) continue;
    for (const [, name] of texts.get(file)!.matchAll(DECLARED)) {
      const word = new RegExp(`\\b${name}\\b`);
      const usedElsewhere = readers.some((other) => other !== file && word.test(texts.get(other)!));
      if (!usedElsewhere) unused.push(`${path.relative(SRC, file)}: ${name}`);
    }
  }
  expect(unused).toEqual([]);
  expect(publicWhole.size).toBeGreaterThanOrEqual(2);
});
