// The rooms of src/providers (docs/design.md, "Layout"): the process kernel
// (exec/) under the policy (policy/) under the backends (backends/), each
// backend on its own, and test/ mirroring src/ so that a file's spec is
// found at the same path.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT, SRC, sourceFiles } from './source-tree.js';

const PROVIDERS = path.join(SRC, 'providers');
const TEST = path.join(ROOT, 'test');

/**
 * Rank of each room: a file imports its own room or one of lower rank. Rooms
 * of equal rank are siblings and never import each other (the backends above
 * all: a backend imports the kernel and the seams, never another backend).
 */
const ROOM_RANK: Record<string, number> = {
  logging: 0,
  health: 0,
  'output-filter': 1,
  'exec/process': 2,
  'exec/shell': 3,
  'exec/terminal': 4,
  'exec/engine': 5,
  'policy/env': 6,
  'policy/sandbox': 6,
  'policy/approval': 6,
  'policy/planner': 7,
  tasks: 7,
  registry: 7,
  'backends/local': 8,
  'backends/pty': 8,
  'backends/bwrap': 8,
  'backends/docker': 8,
  'backends/kubernetes': 8,
  observability: 9,
};

/** Folders of test/ that hold product-wide suites rather than one source file's spec. */
const SUITES = ['architecture', 'consumers', 'contract', 'docs', 'e2e', 'interop', 'security', 'support', 'types'];

/** The room of a file under src/providers: `<folder>` or, in exec/policy/backends, `<floor>/<folder>`. */
function roomOf(file: string): string {
  const parts = path.relative(PROVIDERS, file).split(path.sep);
  return ['exec', 'policy', 'backends'].includes(parts[0]!) ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, '.ts')));
}

const providerFiles = sourceFiles(PROVIDERS);
const rel = (file: string): string => path.relative(SRC, file).split(path.sep).join('/');

describe('the rooms of src/providers', () => {
  it('puts every provider file in a known room', () => {
    const unknown = [...new Set(providerFiles.map(roomOf))].filter((room) => ROOM_RANK[room] === undefined);
    expect(unknown).toEqual([]);
  });

  it('imports down only: the kernel knows no policy, the policy no backend, no backend another', () => {
    const wrong: string[] = [];
    for (const file of providerFiles) {
      const from = roomOf(file);
      for (const target of importsOf(file)) {
        if (!target.startsWith(PROVIDERS + path.sep)) continue;
        const to = roomOf(target);
        if (to !== from && ROOM_RANK[to]! >= ROOM_RANK[from]!) wrong.push(`${rel(file)} -> ${rel(target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('lets a backend reach the policy only through its seams (the policy decides, backends apply)', () => {
    const seams = new Set(['policy/sandbox/sandbox-policy.ts', 'policy/sandbox/confinement.ts', 'policy/planner/fallback-planner.ts']);
    const reaching = providerFiles
      .filter((file) => roomOf(file).startsWith('backends/'))
      .flatMap((file) => importsOf(file).map((target) => [file, path.relative(PROVIDERS, target).split(path.sep).join('/')] as const))
      .filter(([, target]) => target.startsWith('policy/') && !seams.has(target))
      .map(([file, target]) => `${rel(file)} -> ${target}`);
    expect(reaching).toEqual([]);
    // The executors ask the fallback seam for a request nobody planned.
    expect(importsOf(path.join(PROVIDERS, 'backends/local/local-shell-executor.ts')).map((target) => rel(target))).toContain('providers/policy/planner/fallback-planner.ts');
  });

  it('finds the imports it checks (a parse that saw none would pass vacuously)', () => {
    const docker = importsOf(path.join(PROVIDERS, 'backends/docker/docker.module.ts')).map(roomOf);
    expect(docker).toContain('exec/engine');
    expect(importsOf(path.join(PROVIDERS, 'backends/kubernetes/kubernetes-engine.ts')).map(roomOf)).toContain('exec/engine');
  });
});

describe('test/ mirrors src/', () => {
  const specs = sourceFiles(TEST)
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.relative(TEST, file))
    .filter((file) => !SUITES.includes(file.split(path.sep)[0]!));

  it('keeps every spec outside the product-wide suites in a folder that exists in src/', () => {
    const orphans = specs.filter((file) => !existsSync(path.join(SRC, path.dirname(file))));
    expect(orphans).toEqual([]);
  });

  it("puts a spec named after a source file beside that file's path", () => {
    const byName = new Map<string, string[]>();
    for (const file of sourceFiles(SRC)) byName.set(path.basename(file, '.ts'), [...(byName.get(path.basename(file, '.ts')) ?? []), path.relative(SRC, path.dirname(file)) || '.']);
    const misplaced = specs.filter((file) => {
      const homes = byName.get(path.basename(file, '.test.ts'));
      return homes !== undefined && !homes.includes(path.dirname(file));
    });
    expect(misplaced).toEqual([]);
    expect(specs.length).toBeGreaterThan(100);
  });
});
