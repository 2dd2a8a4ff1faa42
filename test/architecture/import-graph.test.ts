// The import graph of src/ as a whole: no circle (a file that reaches itself
// through its imports, type-only imports included), and no two rooms
// under src/providers or src/mcp that import each other both ways.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { SRC, sourceFiles } from './source-tree.js';

/** The files under src/ a file imports (static, export-from, dynamic, type-only alike). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, '.ts')));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const rel = (file: string): string => path.relative(SRC, file);

/** Every circle, each named once by its files in import order (Tarjan's strongly connected components). */
function circles(): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, index);
    low.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(rel(member));
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of files) if (!order.has(file)) visit(file);
  return found;
}

/** Edges between different rooms of src/providers (providers-layout.test.ts) or src/mcp, with one file pair as the example. */
function providerFolderEdges(): Map<string, string> {
  const edges = new Map<string, string>();
  const folderOf = (file: string): string | undefined => {
    const parts = rel(file).split(path.sep);
    // src/mcp: its rooms by role, and the servers that compose them at its top.
    if (parts[0] === 'mcp') return parts.length > 2 ? `mcp/${parts[1]}` : 'mcp';
    if (parts[0] !== 'providers' || parts.length <= 2) return undefined;
    return ['exec', 'policy', 'backends'].includes(parts[1]!) ? `${parts[1]}/${parts[2]}` : parts[1];
  };
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      if (!edges.has(`${from} -> ${to}`)) edges.set(`${from} -> ${to}`, `${rel(file)} imports ${rel(target)}`);
    }
  }
  return edges;
}

describe('the import graph of src/', () => {
  it('has no circle', () => {
    expect(circles()).toEqual([]);
  });

  it('has no two rooms under src/providers or src/mcp importing each other both ways', () => {
    const edges = providerFolderEdges();
    const bothWays: string[] = [];
    for (const [edge, example] of edges) {
      const [from, to] = edge.split(' -> ') as [string, string];
      if (from < to && edges.has(`${to} -> ${from}`)) bothWays.push(`${from} <-> ${to}: ${example}; ${edges.get(`${to} -> ${from}`)}`);
    }
    expect(bothWays).toEqual([]);
  });
});
