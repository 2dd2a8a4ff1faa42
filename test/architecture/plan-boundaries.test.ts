// The shape of one call and one session, checked on the source: the process
// kernel and the shells apply plans and know no sandbox mode, and no provider
// or tool keeps per-session state outside the session scope.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const rel = (file: string): string => path.relative(SRC, file);

/** The executors, the terminal backends and their seam and result types. */
const APPLIERS = [
  ...sourceFiles(path.join(SRC, 'providers/shell')),
  ...sourceFiles(path.join(SRC, 'providers/terminal')),
  path.join(SRC, 'providers/container-engine/container-shell-executor.ts'),
  path.join(SRC, 'providers/container-engine/container-terminal-backend.ts'),
  path.join(SRC, 'providers/container-engine/container-shell-session.ts'),
];

describe('one call, one plan', () => {
  it('no executor, terminal backend, or their seam and result types mentions a sandbox mode', () => {
    const mentions = APPLIERS.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => /sandboxMode|SandboxMode|sandbox-mode|escalationRefusal|deniedUnder|confinementChange|sandbox\/confinement/.test(line))
        .map(({ line, index }) => `${rel(file)}:${index + 1}: ${line.trim()}`),
    );
    expect(mentions).toEqual([]);
  });

  it('knows no hidden stamp on a spec: the type says it was checked', () => {
    const stamps = sourceFiles(SRC).filter((file) => /Symbol\(['"]dsh\.checkedExecSpec/.test(readFileSync(file, 'utf8')));
    expect(stamps.map(rel)).toEqual([]);
  });
});

describe('session scope', () => {
  it('no provider or tool registers its own per-session disposal (state lives in the session scope)', () => {
    const hooks = [...sourceFiles(path.join(SRC, 'providers')), ...sourceFiles(path.join(SRC, 'tools'))].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => /\.onDispose\(/.test(line))
        .map(({ line, index }) => `${rel(file)}:${index + 1}: ${line.trim()}`),
    );
    expect(hooks).toEqual([]);
  });
});
