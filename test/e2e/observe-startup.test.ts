// Metrics and spans cost nothing at start-up: prom-client loads with the first read of the metrics, the
// OpenTelemetry API with the first call once an SDK is registered with it (none is in the CLI).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, MAIN_JS, ROOT } from '../support/built-server.js';

const TRACE = path.join(ROOT, 'test/e2e/support/trace-loads.mjs');
const OBSERVABILITY = [/\/prom-client\//, /\/@opentelemetry\//];

function loadedBy(args: string[], dir: string): { status: number | null; loaded: string[] } {
  const file = path.join(dir, `trace-${Math.random().toString(36).slice(2)}`);
  const run = spawnSync(process.execPath, ['--import', TRACE, MAIN_JS, ...args], {
    // The module tree: the bundled CLI (src/cli/bundled-cli.ts) loads one file, where no module can be told apart.
    env: { ...process.env, DSH_TRACE_LOADS: file, DSH_TOOLS_MODULE_TREE: '1' },
    encoding: 'utf8',
  });
  return { status: run.status, loaded: readFileSync(file, 'utf8').split('\n').filter(Boolean) };
}

describe('observability at start-up', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(path.join(os.tmpdir(), 'observe-startup-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('neither prompt nor a call without a reader or an SDK loads prom-client or the OpenTelemetry API', () => {
    const prompt = loadedBy(['prompt', '--workspace', dir], dir);
    expect(prompt.status).toBe(0);
    expect(prompt.loaded.filter((url) => OBSERVABILITY.some((p) => p.test(url)))).toEqual([]);
    const call = loadedBy(['call', 'bash', JSON.stringify({ command: 'true', description: 'x' }), '--workspace', dir], dir);
    expect(call.status).toBe(0);
    // Nothing reads a one-shot call's metrics (its updates are dropped with the host), and no SDK takes spans.
    expect(call.loaded.filter((url) => OBSERVABILITY.some((p) => p.test(url)))).toEqual([]);
  });
});
