import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE = path.join(ROOT, 'src/providers/exec/engine/native/dsh-call.c');
const BINARY = path.join(ROOT, 'dist/native', `dsh-call-${process.arch}`);

const mtime = (file: string): number => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};

/**
 * Suites that run the sources use the native call helper `npm run build`
 * leaves in dist/native: built here first when it is missing or older than
 * its C source (a fresh clone's `npm test`, an edited helper). Parallel
 * workers may both build: each renames a whole file into place.
 */
export function ensureCallHelper(): void {
  if (mtime(BINARY) >= mtime(SOURCE)) return;
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-call-helper.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
}
