import fs from 'node:fs';
import path from 'node:path';
import { hiddenTempRoots, isWithin } from './bwrap-mounts.js';

/**
 * `--ro-bind` over each protected path that exists inside the writable
 * workspace (docs/security.md#protected-paths), at its real path: a `.git`
 * that is a symlink to a directory in the workspace protects that directory.
 * A mount point cannot be removed or renamed (EBUSY), so `mv .git .g` and
 * replacing `.git` by a symlink fail too. Nothing is created for a path that
 * does not exist: bwrap would have to make the mount point in the user's
 * tree (see docs/limitations.md for a `.git` a command creates itself).
 */
export function protectedPathFlags(root: string, entries: readonly string[]): string[] {
  const flags: string[] = [];
  const bound = new Set<string>();
  for (const entry of entries) {
    const real = realInside(path.join(root, entry), root);
    if (real === undefined || bound.has(real)) continue;
    bound.add(real);
    flags.push('--ro-bind', real, real);
  }
  return flags;
}

/**
 * Masks for the server's own files (docs/security.md#hidden-server-files):
 * `/dev/null` over a file, an empty read-only tmpfs over a directory, at the
 * given path and at its real path. A file kept beside a Kubernetes-style
 * `..data` link (a mounted secret, whose real path moves on each update) has
 * its whole directory masked. Files under the hidden temp roots (outside the
 * workspace) are hidden already; files that do not exist are skipped (nothing to read, and bwrap
 * would have to create the mount point).
 */
export function hiddenFileFlags(files: readonly string[], workspaceRoot: string): string[] {
  const masked = hiddenTempRoots();
  const targets = new Map<string, boolean>();
  for (const file of files) {
    const dir = path.dirname(file);
    if (exists(path.join(dir, '..data'))) addTarget(targets, dir);
    addTarget(targets, file);
    addTarget(targets, realOrUndefined(file));
  }
  const flags: string[] = [];
  for (const [target, isDirectory] of targets) {
    // A workspace inside a temp root is bound back over its mask: what lies in it is visible again.
    const shownAgain = isWithin(target, workspaceRoot) && masked.some((dir) => isWithin(workspaceRoot, dir) && workspaceRoot !== dir);
    if (masked.some((dir) => isWithin(target, dir)) && !shownAgain) continue;
    if (isDirectory) flags.push('--tmpfs', target, '--remount-ro', target);
    else flags.push('--ro-bind', '/dev/null', target);
  }
  return flags;
}

function addTarget(targets: Map<string, boolean>, file: string | undefined): void {
  if (file === undefined || targets.has(file)) return;
  try {
    targets.set(file, fs.statSync(file).isDirectory());
  } catch {
    // Not there: nothing to mask.
  }
}

/** The real path of `file` when it exists and lies inside `root`. */
function realInside(file: string, root: string): string | undefined {
  const real = realOrUndefined(file);
  return real !== undefined && real !== root && isWithin(real, root) ? real : undefined;
}

function realOrUndefined(file: string): string | undefined {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return undefined;
  }
}

function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
