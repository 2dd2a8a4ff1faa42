import { chmodSync, copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODULE_ANCHOR } from '../../../../core/module-anchor.js';

// The native call helper (dsh-call.c beside this file; docs/containers.md#the-native-call-helper):
// where `npm run build` left it for this machine's architecture, and when a call may use it.

/** What `dsh-call --version` prints: the holder uses no other helper. */
export const CALL_HELPER_VERSION = 'dsh-call 1';

/** Its name in a channel's directory. */
const CALL_HELPER_NAME = 'dsh-call';

let found: string | null | undefined;

/**
 * The helper built for this architecture (dist/native/dsh-call-<arch>),
 * found from where this code runs: dist/…, dist/cjs/…, the bundled CLI, or
 * the sources under test. Null when this installation has none (built
 * without a C compiler): channels then run every call in bash.
 */
export function callHelperBinary(): string | null {
  if (found !== undefined) return found;
  const name = `dsh-call-${process.arch}`;
  const start = typeof __filename === 'string' ? __filename : fileURLToPath(MODULE_ANCHOR);
  for (let dir = path.dirname(start); ; dir = path.dirname(dir)) {
    for (const candidate of [path.join(dir, 'native', name), path.join(dir, 'dist', 'native', name)]) {
      if (existsSync(candidate)) return (found = candidate);
    }
    if (path.dirname(dir) === dir) return (found = null);
  }
}

/** Copies the helper into a channel's directory (the container sees it there); its path, or undefined. */
export function placeCallHelper(channelDir: string): string | undefined {
  const binary = callHelperBinary();
  if (binary === null) return undefined;
  const target = path.join(channelDir, CALL_HELPER_NAME);
  // Under a new name, then renamed over: a helper of an earlier holder may still be running the old file.
  const fresh = `${target}.${process.pid}.new`;
  try {
    copyFileSync(binary, fresh);
    chmodSync(fresh, 0o755);
    renameSync(fresh, target);
    return target;
  } catch {
    rmSync(fresh, { force: true });
    return undefined;
  }
}

/**
 * Whether the helper gives a call exactly what the bash wrapper would: the
 * shell named by an absolute path or a bare name (searched in PATH as bash
 * does), a workdir bash's `cd` would leave as it is (absolute, no `.`,
 * `..`, doubled or trailing slash), a `SHLVL`, if the call sets one, that
 * bash counts without a warning, and no `PWD` of the call's own (bash
 * weighs one against its working directory at start).
 */
export function callFitsHelper(shellPath: string, workdir: string, env: Readonly<Record<string, string>>): boolean {
  if (shellPath === '' || (!shellPath.startsWith('/') && shellPath.includes('/'))) return false;
  if (workdir !== '/' && !/^(\/[^/]+)+$/.test(workdir)) return false;
  if (workdir.split('/').some((part) => part === '.' || part === '..')) return false;
  if (env.PWD !== undefined) return false;
  const level = env.SHLVL;
  return level === undefined || (/^(0|[1-9][0-9]{0,2})$/.test(level) && Number(level) < 999);
}
