// Records the bundled CLI's V8 code caches, one per command (src/cli/bundled-cli.ts):
// each command runs for real once and writes, at its exit, the cache of every
// function it compiled (lazily compiled ones included), one file per bundle
// file it ran (the start-up bundle and each chunk it loaded).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TRUE_CALL = { command: 'true', description: 'records the code cache' };
const INVALID_CALL = { ...TRUE_CALL, timeoutMs: '5' };
/** `serve` (stdio): initialize, tools/list and a call, then end of input. */
const SERVE_REQUESTS = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dsh-build', version: '0' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'bash', arguments: TRUE_CALL } },
  // Valid arguments skip class-validator (src/core/quick-args.ts): an invalid call records the validation chunk's cache.
  { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'bash', arguments: INVALID_CALL } },
];
const RUNS = {
  serve: { args: ['serve'], input: SERVE_REQUESTS.map((request) => `${JSON.stringify(request)}\n`).join(''), endAfter: '"id":4' },
  // First an invalid call (its run writes the validation chunk's cache), then a valid one, whose
  // caches of the start-up bundle and the chunks it loads replace the first run's.
  'call (invalid)': { cache: 'call', args: ['call', 'bash', JSON.stringify(INVALID_CALL)], exitCode: 1 },
  call: { args: ['call', 'bash', JSON.stringify(TRUE_CALL)] },
  prompt: { args: ['prompt'] },
};

function record(root, workspace, command) {
  const { args, input, endAfter, cache: cached = command, exitCode = 0 } = RUNS[command];
  const child = spawn(process.execPath, [path.join(root, 'dist/cli/main.js'), ...args, '--workspace', workspace], {
    env: { ...process.env, DSH_TOOLS_RECORD_CODE_CACHE: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let seen = '';
  child.stdout.on('data', (chunk) => {
    seen += chunk;
    if (endAfter !== undefined && seen.includes(endAfter)) child.stdin.end();
  });
  if (input === undefined) child.stdin.end();
  else child.stdin.write(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.once('close', resolve)).then((code) => {
    clearTimeout(timer);
    const cache = path.join(root, `dist/cli/dsh-tools.cjs.${cached}.cache`);
    if (code !== exitCode || !existsSync(cache)) throw new Error(`recording the ${command} code cache failed (exit ${code}): ${seen.slice(0, 300)}`);
  });
}

export async function recordCodeCache(root) {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'dsh-code-cache-'));
  try {
    for (const command of Object.keys(RUNS)) await record(root, workspace, command);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
