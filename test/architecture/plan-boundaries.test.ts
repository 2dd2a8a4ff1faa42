// The shape of one call and one session, checked on the source: the process
// kernel and the shells apply plans and know no sandbox mode, no provider or
// tool keeps per-session state outside the session scope, and the sandbox's
// seams live in policy/ with the planner that consults them (backends/bwrap
// implements them), and what the planner decided travels with the call as
// data: no ambient channel carries it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SRC, sourceFiles } from './source-tree.js';

const rel = (file: string): string => path.relative(SRC, file);

/** The executors, the terminal backends and their seam and result types. */
const APPLIERS = [
  ...sourceFiles(path.join(SRC, 'providers/exec')),
  ...sourceFiles(path.join(SRC, 'providers/backends/local')),
  ...sourceFiles(path.join(SRC, 'providers/backends/pty')),
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

describe('the plan travels as data', () => {
  /** `rel` paths of the source files whose code matches `pattern`. */
  const using = (pattern: RegExp): string[] => sourceFiles(SRC).filter((file) => pattern.test(readFileSync(file, 'utf8'))).map(rel).sort();
  const p = (name: string): string => name.split('/').join(path.sep);

  it('keeps AsyncLocalStorage to the two call channels of core (the session of a call, the tracing scope)', () => {
    expect(using(/AsyncLocalStorage/)).toEqual(['core/call-scope.ts', 'core/tool-call-context.ts'].map(p));
  });

  it('lets only the call hook and the tracing observer reach the call scope (a step is timed through `callStep`)', () => {
    expect(using(/\b(currentCallScope|runInCallScope)\b/)).toEqual(
      ['core/call-scope.ts', 'providers/observability/call-hook.ts', 'providers/observability/tracing-observer.ts'].map(p),
    );
  });

  it('has the planner alone hand a call its plan, and the call hook alone take it', () => {
    expect(using(/\.onPlan\?\.\(/)).toEqual(['providers/policy/planner/plan-record.ts'].map(p));
    expect(using(/\bonPlan:/)).toEqual(['providers/observability/call-hook.ts'].map(p));
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

describe('the sandbox seams live with the planner', () => {
  const importsOf = (file: string): string[] =>
    [...readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)].map((match) => path.resolve(path.dirname(file), match[1]!.replace(/\.js$/, '.ts')));
  const SANDBOX = path.join(SRC, 'providers/backends/bwrap') + path.sep;

  it('declares the sandbox mode in core only', () => {
    const declared = sourceFiles(SRC).filter((file) => /export type SandboxMode\b/.test(readFileSync(file, 'utf8')));
    expect(declared.map(rel)).toEqual([path.join('core', 'sandbox-mode.ts')]);
  });

  it('defines the SandboxPolicy, SandboxProvider and Confinement tokens in policy/sandbox', () => {
    const tokens = sourceFiles(SRC).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/Symbol\.for\('dsh\.(SandboxPolicy|SandboxProvider|Confinement)'\)/g)].map((match) => `${match[1]} in ${rel(path.dirname(file))}`),
    );
    expect(tokens.sort()).toEqual(['Confinement in providers/policy/sandbox', 'SandboxPolicy in providers/policy/sandbox', 'SandboxProvider in providers/policy/sandbox'].map((t) => t.split('/').join(path.sep)));
  });

  it('leaves backends/bwrap to implementations: no other provider and no tool imports it', () => {
    const reaching = [...sourceFiles(path.join(SRC, 'providers')), ...sourceFiles(path.join(SRC, 'tools'))]
      .filter((file) => !file.startsWith(SANDBOX))
      .flatMap((file) => importsOf(file).filter((target) => target.startsWith(SANDBOX)).map((target) => `${rel(file)} -> ${rel(target)}`));
    expect(reaching).toEqual([]);
  });

  it('finds the imports it checks (a parse that saw none would pass vacuously)', () => {
    const planner = importsOf(path.join(SRC, 'providers/policy/planner/local-call-planner.ts'));
    expect(planner).toContain(path.join(SRC, 'providers/policy/sandbox/confinement.ts'));
    expect(importsOf(path.join(SRC, 'providers/backends/bwrap/sandbox.module.ts'))).toContain(path.join(SRC, 'providers/policy/sandbox/sandbox-policy.ts'));
  });
});
