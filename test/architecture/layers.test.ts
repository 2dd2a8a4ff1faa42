// The layering of src/ (docs/contract.md, "Layers"): every import runs down a
// layer or stays inside its own folder, and every file stays small.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { SRC, sourceFiles } from './source-tree.js';

/**
 * Rank of each layer: a file may import its own layer or one of lower rank.
 * Two layers of equal rank are siblings and never import each other.
 */
const RANK: Record<string, number> = {
  core: 0,
  'version.ts': 0,
  providers: 1,
  tools: 2,
  plugins: 3,
  container: 3,
  testing: 4,
  mcp: 4,
  cli: 5,
  // The package entries (`dsh-tools`, `dsh-tools/testing`, `dsh-tools/mcp`).
  'index.ts': 6,
  'testing.ts': 6,
  'mcp.ts': 6,
};

/** Over the limit today, each with the reason; the test fails once one is back under it, so the entry goes. */
const OVERSIZED: Record<string, string> = {};
const MAX_LINES = 300;

/** Layer of a path under src/: its first folder, or the file name for a top-level file. */
function layerOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0]!;
}

/** Relative specifiers of every import, export-from and dynamic import() in a file. */
function relativeImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((ref) => ref.fileName).filter((name) => name.startsWith('.'));
}

const files = sourceFiles(SRC);

describe('source layers', () => {
  it('knows the layer of every file under src/', () => {
    const unknown = [...new Set(files.map(layerOf))].filter((layer) => RANK[layer] === undefined);
    expect(unknown).toEqual([]);
  });

  it('has no import that runs up a layer or across to a sibling layer', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const specifier of relativeImports(file)) {
        const to = layerOf(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
        if (to === from) continue;
        if (RANK[to] === undefined || RANK[to]! >= RANK[from]!) upward.push(`${path.relative(SRC, file)} -> ${specifier}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('keeps test fakes out of production code: only the testing entry and src/testing/ import src/testing/', () => {
    const leaks = files.flatMap((file) =>
      relativeImports(file)
        .filter((specifier) => layerOf(path.resolve(path.dirname(file), specifier)) === 'testing')
        .filter(() => !['testing', 'testing.ts'].includes(layerOf(file)))
        .map((specifier) => `${path.relative(SRC, file)} -> ${specifier}`),
    );
    expect(leaks).toEqual([]);
  });

  it(`keeps every file at most ${MAX_LINES} lines`, () => {
    const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((line, i, all) => i < all.length - 1 || line !== '').length;
    const tooLong = files
      .map((file) => ({ name: path.relative(SRC, file).split(path.sep).join('/'), count: lines(file) }))
      .filter(({ name, count }) => count > MAX_LINES && OVERSIZED[name] === undefined)
      .map(({ name, count }) => `${name}: ${count} lines`);
    expect(tooLong).toEqual([]);
    const fixed = Object.keys(OVERSIZED).filter((name) => lines(path.join(SRC, name)) <= MAX_LINES);
    expect(fixed).toEqual([]);
  });

  it('finds the imports it checks (a parse that saw none would pass vacuously)', () => {
    expect(relativeImports(path.join(SRC, 'container/dsh-host.ts'))).toContain('../core/tool-contract.js');
    expect(relativeImports(path.join(SRC, 'container/dsh-host.ts'))).toContain('../core/arg-validation.js');
  });
});
