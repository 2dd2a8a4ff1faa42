import fs from 'node:fs';
import path from 'node:path';
import type { ContainerMount } from './container-engine.js';

/** What a session container is given besides its image (see `sessionMounts`). */
interface SessionMountInput {
  /** The configured extra mounts. */
  readonly configured: readonly ContainerMount[];
  /** The session's shared directory (spill files), read-only at the same path. */
  readonly sharedDir: string;
  readonly workspace?: string;
  readonly workspaceReadOnly: boolean;
  /** Workspace-relative paths kept read-only in a writable workspace (docs/security.md#protected-paths). */
  readonly protectedPaths: readonly string[];
  /** The server's own files (docs/security.md#hidden-server-files): masked where a mount would show them. */
  readonly hidden: readonly string[];
  /** A sub-directory of the shared directory mounted read-write over it (a shared session's task files). */
  readonly writableSubdir?: string;
}

/** The empty file and directory, in the shared directory, that masks are bound from. */
const MASK_FILE = '.masked-file';
const MASK_DIR = '.masked-dir';

/**
 * Every mount of a session container: the configured ones, the shared
 * directory, the workspace, then a read-only mount over each protected path
 * that exists in a writable workspace (a mount point cannot be removed or
 * renamed from inside), then an empty read-only mount over each of the
 * server's own files that a mount would show. Engines mount parents first.
 */
export function sessionMounts(input: SessionMountInput): ContainerMount[] {
  const mounts: ContainerMount[] = [...input.configured, { source: input.sharedDir, target: input.sharedDir, readOnly: true, kind: 'directory' }];
  if (input.writableSubdir !== undefined) {
    const writable = path.join(input.sharedDir, input.writableSubdir);
    mounts.push({ source: writable, target: writable, readOnly: false, kind: 'directory' });
  }
  const { workspace } = input;
  if (workspace !== undefined) {
    mounts.push({ source: workspace, target: workspace, readOnly: input.workspaceReadOnly });
    if (!input.workspaceReadOnly) mounts.push(...protectedMounts(workspace, input.protectedPaths));
  }
  mounts.push(...maskMounts(mounts, input.hidden, input.sharedDir));
  return mounts;
}

function protectedMounts(workspace: string, entries: readonly string[]): ContainerMount[] {
  const realWorkspace = realOrUndefined(workspace);
  if (realWorkspace === undefined) return [];
  const out: ContainerMount[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const real = realOrUndefined(path.join(workspace, entry));
    if (real === undefined || seen.has(real) || !isStrictlyWithin(real, realWorkspace)) continue;
    seen.add(real);
    // Inside the container the workspace is at its configured path: the same relative place there.
    const target = path.join(workspace, path.relative(realWorkspace, real));
    out.push({ source: real, target, readOnly: true, kind: kindOf(real) });
  }
  return out;
}

function maskMounts(mounts: readonly ContainerMount[], hidden: readonly string[], sharedDir: string): ContainerMount[] {
  const out: ContainerMount[] = [];
  const seen = new Set<string>();
  for (const file of hidden) {
    for (const candidate of new Set([file, realOrUndefined(file)])) {
      if (candidate === undefined) continue;
      const kind = kindOrUndefined(candidate);
      if (kind === undefined) continue;
      for (const mount of mounts) {
        const real = realOrUndefined(mount.source) ?? mount.source;
        if (!isWithinOrSame(candidate, real)) continue;
        const target = path.join(mount.target, path.relative(real, candidate));
        if (seen.has(target)) continue;
        seen.add(target);
        out.push({ source: maskSource(sharedDir, kind), target, readOnly: true, kind });
      }
    }
  }
  return out;
}

/** The empty file or directory in the shared directory (made once, read-only). */
function maskSource(sharedDir: string, kind: 'directory' | 'file'): string {
  const source = path.join(sharedDir, kind === 'directory' ? MASK_DIR : MASK_FILE);
  if (!fs.existsSync(source)) {
    if (kind === 'directory') fs.mkdirSync(source, { mode: 0o555 });
    else fs.writeFileSync(source, '', { mode: 0o444 });
  }
  return source;
}

function isStrictlyWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function isWithinOrSame(child: string, parent: string): boolean {
  return child === parent || isStrictlyWithin(child, parent);
}

function realOrUndefined(file: string): string | undefined {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return undefined;
  }
}

function kindOrUndefined(file: string): 'directory' | 'file' | undefined {
  try {
    return fs.statSync(file).isDirectory() ? 'directory' : 'file';
  } catch {
    return undefined;
  }
}

function kindOf(file: string): 'directory' | 'file' {
  return kindOrUndefined(file) ?? 'file';
}
