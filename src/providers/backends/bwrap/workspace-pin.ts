import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realRoot } from './local-sandbox-policy.js';

/** Directories that hold the system rather than a project: confining a workspace-write to one of them confines nothing. */
const SYSTEM_DIRS: readonly string[] = [
  '/', '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib32', '/lib64', '/libx32', '/media', '/mnt', '/opt',
  '/proc', '/root', '/run', '/sbin', '/srv', '/sys', '/tmp', '/usr', '/usr/bin', '/usr/lib', '/usr/local',
  '/usr/sbin', '/usr/share', '/var', '/var/lib', '/var/log', '/var/run', '/var/tmp',
];

/** The home and temp directories' real paths, by their configured paths (resolved once per process and path). */
const realSystemDirs = new Map<string, string>();

function realSystemDir(dir: string): string {
  let real = realSystemDirs.get(dir);
  if (real === undefined) realSystemDirs.set(dir, (real = realRoot(dir)));
  return real;
}

/**
 * True for `/`, the top-level system directories, the home directory and the
 * temp directory (symlinks resolved; `real`: `dir` is a real path already).
 */
function isSystemRoot(dir: string, options: { readonly real?: boolean } = {}): boolean {
  const real = options.real === true ? dir : realRoot(dir);
  const roots = new Set([...SYSTEM_DIRS, realSystemDir(os.homedir()), realSystemDir(os.tmpdir())]);
  return roots.has(real) || roots.has(path.resolve(dir));
}

/** What the refusal asks for, in library words (the CLI names its flag instead: docs/contract.md). */
export const SYSTEM_ROOT_HINT = 'choose a project directory as the workspace';

/** Throws the refusal for a confined workspace that is a system directory. */
export function checkNotSystemRoot(dir: string, options: { readonly real?: boolean } = {}): void {
  if (!isSystemRoot(dir, options)) return;
  throw new Error(`refusing to confine commands to "${dir}": it is a system directory, not a project; ${SYSTEM_ROOT_HINT}`);
}

/**
 * A session's workspace as it was when the session started: its real path
 * and, when it existed, its device and inode. A later call whose workspace
 * resolves elsewhere, or whose directory was replaced, must not run confined
 * to it (a swapped-in symlink to `/` would otherwise be bound writable).
 */
export class WorkspacePin {
  private constructor(
    readonly realPath: string,
    private readonly identity: { dev: number; ino: number } | undefined,
  ) {}

  static of(root: string): WorkspacePin {
    const realPath = realRoot(root);
    return new WorkspacePin(realPath, identityOf(realPath));
  }

  /** Throws unless `root` still is the pinned directory. */
  verify(root: string): void {
    this.verifyReal(realRoot(root), root);
  }

  /** `verify` for a root whose symlinks were just resolved (the policy's): the same checks without resolving it again. */
  verifyReal(now: string, root = now): void {
    if (now !== this.realPath) {
      throw changed(`${root} now resolves to ${now}, not ${this.realPath}`);
    }
    const identity = identityOf(now);
    if (this.identity && (!identity || identity.dev !== this.identity.dev || identity.ino !== this.identity.ino)) {
      throw changed(`${now} is no longer the directory it was (device or inode differ)`);
    }
  }
}

function identityOf(dir: string): { dev: number; ino: number } | undefined {
  try {
    const stat = fs.statSync(dir);
    return stat.isDirectory() ? { dev: stat.dev, ino: stat.ino } : undefined;
  } catch {
    return undefined;
  }
}

function changed(detail: string): Error {
  return new Error(`the session's workspace changed since it started: ${detail}; start a new session`);
}
