import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCallHelper } from './call-helper-build.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN_JS = path.join(ROOT, 'dist/cli/main.js');
const LOCK = path.join(ROOT, 'dist/.e2e-build-lock');
const STALE_LOCK_MS = 180_000;

function newestSourceMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMtime(full));
    // The operator console's page (html, js, css) is copied into dist/console by the build.
    else if (/\.(ts|js|css|html)$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function mtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function isStale(): boolean {
  return mtime(MAIN_JS) < newestSourceMtime(path.join(ROOT, 'src'));
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The e2e suites spawn the BUILT server (`dist/cli/main.js`), so they build
 * it first when it is missing or older than any file under src/. Jest runs
 * suites in parallel workers: a lock directory makes one worker build while
 * the others wait for it.
 */
export function ensureBuilt(): void {
  ensureCallHelper();
  if (!isStale()) return;
  mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A worker that died mid-build leaves its lock: take it over after a while.
      if (Date.now() - mtime(LOCK) > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else sleepSync(200);
    }
  }
  try {
    if (!isStale()) return;
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      // tsc still emits on type errors; only a missing entry point is fatal here.
      const output = String((error as { stdout?: Buffer }).stdout ?? '');
      if (mtime(MAIN_JS) === 0) throw new Error(`building dist failed:\n${output}`);
      process.stderr.write(`e2e: tsc reported errors (dist was emitted anyway):\n${output}\n`);
    }
    // The rest of `npm run build`: the argument schemas cached for start-up, the operator console's page.
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/cache-arg-schemas.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    cpSync(path.join(ROOT, 'src/mcp/console/page'), path.join(ROOT, 'dist/console'), { recursive: true });
  } finally {
    rmdirSync(LOCK);
  }
}
