// The built CLI with its code caches (src/cli/bundled-cli.ts), on a copy of
// dist/cli so the other suites' CLI is left alone: whatever state a cache is
// in, the CLI runs and prints the same as the module tree.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, MAIN_JS, ROOT } from '../support/built-server.js';
import { initialize } from '../support/raw-legacy.js';

const CALL = ['call', 'bash', JSON.stringify({ command: 'echo cached-$((6 * 7))', description: 'code cache e2e' })];
let copy: string;
let workspace: string;

beforeAll(() => {
  ensureBuilt();
  // Inside dist/, so the bundle's packages resolve from the project's node_modules as in the real one.
  copy = mkdtempSync(path.join(ROOT, 'dist/.code-cache-e2e-'));
  cpSync(path.join(ROOT, 'dist/cli'), path.join(copy, 'cli'), { recursive: true });
  mkdirSync(path.join(copy, 'core'));
  cpSync(path.join(ROOT, 'dist/core/arg-schemas.json'), path.join(copy, 'core/arg-schemas.json'));
  workspace = mkdtempSync(path.join(os.tmpdir(), 'dsh-code-cache-'));
});
afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

const cacheOf = (command: string) => path.join(copy, `cli/dsh-tools.cjs.${command}.cache`);

function cli(args: string[], options: { nodeFlags?: string[]; env?: NodeJS.ProcessEnv; main?: string } = {}) {
  const run = spawnSync(process.execPath, [...(options.nodeFlags ?? []), options.main ?? path.join(copy, 'cli/main.js'), ...args, '--workspace', workspace], {
    env: { ...process.env, DSH_TOOLS_CODE_CACHE_TRACE: '1', ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, outcome: /dsh-tools: code cache (\w+)/.exec(run.stderr)?.[1] ?? run.stderr };
}

function damage(file: string): void {
  const bytes = readFileSync(file);
  for (let at = bytes.indexOf(0x0a) + 1000; at < bytes.length; at += 4099) bytes[at] = bytes[at]! ^ 0xa5;
  writeFileSync(file, bytes);
}

describe('the bundled CLI and its code cache', () => {
  let expectedPrompt: string;
  beforeAll(() => {
    const tree = spawnSync(process.execPath, [MAIN_JS, 'prompt', '--workspace', workspace], {
      env: { ...process.env, DSH_TOOLS_MODULE_TREE: '1' },
      encoding: 'utf8',
    });
    expect(tree.status).toBe(0);
    expectedPrompt = tree.stdout;
  });

  it('uses the cache the build recorded and prints what the module tree prints', () => {
    expect(cli(['prompt'])).toEqual({ status: 0, stdout: expectedPrompt, outcome: 'used' });
    expect(cli(CALL)).toMatchObject({ status: 0, stdout: expect.stringContaining('cached-42'), outcome: 'used' });
  });

  it('compiles from source when V8 refuses the cache (other V8 flags), and prints the same', () => {
    expect(cli(['prompt'], { nodeFlags: ['--expose-gc'] })).toEqual({ status: 0, stdout: expectedPrompt, outcome: 'rejected' });
  });

  it('records a cache for other V8 flags when asked, which is then used', () => {
    const saved = readFileSync(cacheOf('prompt'));
    try {
      expect(cli(['prompt'], { nodeFlags: ['--expose-gc'], env: { DSH_TOOLS_RECORD_CODE_CACHE: '1' } }).status).toBe(0);
      expect(cli(['prompt'], { nodeFlags: ['--expose-gc'] })).toEqual({ status: 0, stdout: expectedPrompt, outcome: 'used' });
      expect(cli(['prompt'])).toEqual({ status: 0, stdout: expectedPrompt, outcome: 'rejected' });
    } finally {
      writeFileSync(cacheOf('prompt'), saved);
    }
  });

  it('compiles from source when a cache is damaged, another build\'s or missing, and prints the same', () => {
    damage(cacheOf('prompt'));
    expect(cli(['prompt'])).toEqual({ status: 0, stdout: expectedPrompt, outcome: 'invalid' });
    damage(cacheOf('call'));
    expect(cli(CALL)).toMatchObject({ status: 0, stdout: expect.stringContaining('cached-42'), outcome: 'invalid' });

    const other = readFileSync(cacheOf('serve'));
    const header = other.toString('latin1', 0, other.indexOf(0x0a)).split(' ');
    header[1] = header[1]!.replace(/./g, (c) => (c === '0' ? '1' : '0'));
    writeFileSync(cacheOf('prompt'), Buffer.concat([Buffer.from(`${header.join(' ')}\n`), other.subarray(other.indexOf(0x0a) + 1)]));
    expect(cli(['prompt'])).toEqual({ status: 0, stdout: expectedPrompt, outcome: 'invalid' });

    writeFileSync(cacheOf('prompt'), other.subarray(other.indexOf(0x0a) + 1));
    expect(cli(['prompt'])).toEqual({ status: 0, stdout: expectedPrompt, outcome: 'invalid' });

    rmSync(cacheOf('prompt'));
    expect(cli(['prompt'])).toEqual({ status: 0, stdout: expectedPrompt, outcome: 'absent' });
  });

  it('loads the packages a command needs later from their chunks, each with its own cache, or compiled from source', () => {
    const traces = (args: string[], expected: { status: number; stdout: string }) => {
      const run = spawnSync(process.execPath, [path.join(copy, 'cli/main.js'), ...args, '--workspace', workspace], {
        env: { ...process.env, DSH_TOOLS_CODE_CACHE_TRACE: '1' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run).toMatchObject({ status: expected.status, stdout: expect.stringContaining(expected.stdout) });
      return run.stderr;
    };
    const valid = () => traces(CALL, { status: 0, stdout: 'cached-42' });
    // Valid arguments skip class-validator (src/core/quick-args.ts); an invalid one loads it for its message.
    const invalid = () =>
      traces(['call', 'bash', JSON.stringify({ command: 'true', description: 'x', timeoutMs: '5' })], {
        status: 1,
        stdout: 'Error: invalid timeoutMs: expected a positive number, got "5"',
      });
    // Nor, with nothing to read metrics and no tracing SDK, prom-client or the OpenTelemetry API.
    expect(valid()).not.toMatch(/dsh-tools\.(validation|observability)\.cjs/);
    expect(invalid()).toContain('dsh-tools: code cache used (dsh-tools.validation.cjs)\n');
    damage(path.join(copy, 'cli/dsh-tools.validation.cjs.call.cache'));
    expect(invalid()).toContain('dsh-tools: code cache invalid (dsh-tools.validation.cjs)\n');
  });

  it('serve answers initialize with a damaged cache', async () => {
    damage(cacheOf('serve'));
    const child = spawn(process.execPath, [path.join(copy, 'cli/main.js'), 'serve', '--workspace', workspace], {
      env: { ...process.env, DSH_TOOLS_CODE_CACHE_TRACE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.once('close', resolve));
    const firstLine = new Promise<string>((resolve) => {
      let seen = '';
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('\n')) resolve(seen.slice(0, seen.indexOf('\n')));
      });
    });
    child.stdin.write(
      `${JSON.stringify(initialize(1, '2025-06-18', 'e2e'))}\n`,
    );
    const answer = JSON.parse(await firstLine) as { id: number; result: { serverInfo: { name: string } } };
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(answer.id).toBe(1);
    expect(answer.result.serverInfo.name).toBe('dsh-tools');
    expect(stderr).toContain('dsh-tools: code cache invalid');
  });

  it('DSH_TOOLS_MODULE_TREE=1 runs the module tree (no bundle, no cache)', () => {
    const run = cli(['prompt'], { main: MAIN_JS, env: { DSH_TOOLS_MODULE_TREE: '1' } });
    expect(run).toEqual({ status: 0, stdout: expectedPrompt, outcome: '' });
  });
});
