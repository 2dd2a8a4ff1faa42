// What start-up loads: `prompt` and the stdio server's first answer must not
// pay for argument validation (class-validator, which pulls in validator.js
// and libphonenumber), the schema generator, or transports they do not use.
// Speed itself is measured in bench/cli.bench.ts.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, MAIN_JS, ROOT } from '../support/built-server.js';
import { bashCall, initialize, INITIALIZED } from '../support/raw-legacy.js';

const TRACE = path.join(ROOT, 'test/e2e/support/trace-loads.mjs');
const VALIDATION = [/\/class-validator\//, /class-validator-jsonschema\/build\/index\.js$/, /\/class-transformer\//];
/** Loaded only by the compositions that use it (the Docker backend with --container). */
const DOCKER = /\/dockerode\//;
/** Loaded only by `doctor` (execa) and by the approval webhook's first request (node's HTTP client). */
const DOCTOR_AND_WEBHOOK = [/\/execa\//, /^node:https?$/];
/** Loaded only by the Kubernetes backend (--kubernetes), at its first cluster call. */
const KUBERNETES = /@kubernetes\/client-node/;
/**
 * The code of compositions other than the chosen one: their environment files,
 * and container or pod code beyond the configuration and seam files the
 * option parser reads.
 */
const OTHER_COMPOSITIONS = [
  /\/plugins\/(container|kubernetes|sandboxed)\.environment\.js$/,
  /\/providers\/container-engine\/(?!container-config\.js|container-engine\.js|container-hardening\.js)[^/]+$/,
  // Reading a `kubernetes:` config section (its checks and its network-policy part) is allowed; nothing that runs pods.
  /\/providers\/kubernetes\/(?!kubernetes-config(-checks)?\.js|network-policy-config\.js)[^/]+$/,
  /\/providers\/sandbox\/(bwrap|sandbox-confinement|seccomp)/,
];

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-startup-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tracedArgs(args: string[]): { argv: string[]; env: NodeJS.ProcessEnv; loaded: () => string[] } {
  const file = path.join(dir, `trace-${Math.random().toString(36).slice(2)}`);
  return {
    argv: ['--import', TRACE, MAIN_JS, ...args],
    // The module tree: the bundled CLI (src/cli/bundled-cli.ts) loads one file, where no module can be told apart.
    env: { ...process.env, DSH_TRACE_LOADS: file, DSH_TOOLS_MODULE_TREE: '1' },
    loaded: () => readFileSync(file, 'utf8').split('\n').filter(Boolean),
  };
}

function matching(loaded: string[], patterns: RegExp[]): string[] {
  return loaded.filter((url) => patterns.some((pattern) => pattern.test(url)));
}

describe('start-up loads only what the first response needs', () => {
  it.each([['prompt'], ['call', 'task_list', '{}']])('%s (local composition): no code of the sandbox, container or Kubernetes compositions', (...args) => {
    const traced = tracedArgs([...args, '--workspace', dir]);
    const run = spawnSync(process.execPath, traced.argv, { env: traced.env, encoding: 'utf8' });
    expect(run.status).toBe(0);
    const loaded = traced.loaded();
    expect(loaded.some((url) => url.endsWith('/plugins/local.environment.js'))).toBe(true);
    expect(matching(loaded, OTHER_COMPOSITIONS)).toEqual([]);
  });

  it('prompt: no validation, no schema generator, no MCP SDK, no execa or HTTP client', () => {
    const traced = tracedArgs(['prompt', '--workspace', dir]);
    const run = spawnSync(process.execPath, traced.argv, { env: traced.env, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('## tool bash');
    expect(matching(traced.loaded(), [...VALIDATION, ...DOCTOR_AND_WEBHOOK, DOCKER, KUBERNETES, /@modelcontextprotocol\/sdk/])).toEqual([]);
  });

  it.each([
    ['task_list', '{}'],
    ['bash', JSON.stringify({ command: 'true', description: 'x' })],
  ])('call %s with valid arguments: no validation, no schema generator, no prom-client (nothing reads its metrics), no OpenTelemetry API (no SDK)', (tool, json) => {
    const traced = tracedArgs(['call', tool, json, '--workspace', dir]);
    const run = spawnSync(process.execPath, traced.argv, { env: traced.env, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(matching(traced.loaded(), [...VALIDATION, /\/prom-client\//, /\/@opentelemetry\//, ...DOCTOR_AND_WEBHOOK, DOCKER, KUBERNETES])).toEqual([]);
  });

  it('call with an invalid argument: class-validator gives the message', () => {
    const traced = tracedArgs(['call', 'bash', JSON.stringify({ command: 'true', description: 'x', timeoutMs: '5' }), '--workspace', dir]);
    const run = spawnSync(process.execPath, traced.argv, { env: traced.env, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('Error: invalid timeoutMs: expected a positive number, got "5"\n');
    expect(matching(traced.loaded(), VALIDATION).length).toBeGreaterThan(0);
  });

  it('serve (stdio): initialize answered without validation, schema generator or HTTP transport; a call then validates', async () => {
    const traced = tracedArgs(['serve', '--workspace', dir]);
    const child = spawn(process.execPath, traced.argv, { env: traced.env, stdio: ['pipe', 'pipe', 'ignore'] });
    const lines: string[] = [];
    let pending = '';
    const nextLine = () =>
      new Promise<string>((resolve, reject) => {
        const take = () => {
          const at = pending.indexOf('\n');
          if (at < 0) return false;
          resolve(pending.slice(0, at));
          pending = pending.slice(at + 1);
          return true;
        };
        if (take()) return;
        const onData = (chunk: Buffer) => {
          pending += chunk.toString();
          if (take()) child.stdout.off('data', onData);
        };
        child.stdout.on('data', onData);
        child.once('close', () => reject(new Error('the server exited')));
      });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      send(initialize(1, '2025-06-18', 't'));
      lines.push(await nextLine());
      expect(JSON.parse(lines[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: 'dsh-tools' } } });
      const beforeCall = traced.loaded();
      expect(matching(beforeCall, [...VALIDATION, ...DOCTOR_AND_WEBHOOK, DOCKER, KUBERNETES, /@hono\//, /streamableHttp/])).toEqual([]);

      send(INITIALIZED);
      send(bashCall(2, 'true', { timeoutMs: '5' }, 'x'));
      const reply = JSON.parse(await nextLine()) as { id: number; result: { isError: boolean; content: Array<{ text: string }> } };
      expect(reply).toMatchObject({ id: 2, result: { isError: true } });
      expect(reply.result.content[0]!.text).toBe('Error: invalid timeoutMs: expected a positive number, got "5"');
    } finally {
      child.stdin.end();
      await exited;
    }
  });
});
