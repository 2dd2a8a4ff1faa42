import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fmt, median, type Figure } from './stats.js';

// One fresh process per run: the parser, once loaded, is shared by the whole process.
const SCRIPT = `
const { createHost, localEnvironment } = await import(process.argv[1]);
const rules = [{ match: 'rm', action: 'deny' }];
let t = performance.now();
const host = await createHost(...localEnvironment({ workspace: '/tmp', approval: { rules } }));
const created = performance.now() - t;
t = performance.now();
await host.call('bash', { command: 'echo hi', description: 'Echo' });
const first = performance.now() - t;
await host.dispose();
console.log(JSON.stringify({ created, first }));
`;

/**
 * Command rules: how long `createHost` takes and how long the first checked
 * call waits, each in a fresh process. `createHost` loads the bash parser
 * when rules are configured (docs/embedding.md, "Tests"); BENCH_BASE_DIST
 * (another build's dist/, e.g. main's) runs the same figures against it.
 */
export async function benchCommandRules(runs: number): Promise<Figure[]> {
  const builds: Array<[string, string]> = [['this build', path.resolve('dist/index.js')]];
  if (process.env.BENCH_BASE_DIST) builds.push(['base build', path.resolve(process.env.BENCH_BASE_DIST, 'index.js')]);
  const figures: Figure[] = [];
  for (const [label, entry] of builds) {
    const created: number[] = [];
    const first: number[] = [];
    for (let i = 0; i < runs; i++) {
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT, entry], { encoding: 'utf8' });
      const run = JSON.parse(out.trim().split('\n').pop()!) as { created: number; first: number };
      created.push(run.created);
      first.push(run.first);
    }
    figures.push({ name: `command rules, createHost (${label})`, value: fmt(median(created)) });
    figures.push({ name: `command rules, first call (${label})`, value: fmt(median(first)) });
  }
  return figures;
}
