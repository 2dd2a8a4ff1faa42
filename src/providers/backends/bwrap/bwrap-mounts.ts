import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ResolvedSandbox } from '../../policy/sandbox/sandbox-policy.js';

/** Runtime directories that hold the host's sockets (Docker, D-Bus, the user's runtime dir). */
const RUNTIME_DIRS = ['/run', '/var/run'];

/** True when `child` is `parent` or lies below it. */
export function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The temp roots hidden from every confined command: `/tmp` and the OS temp
 * directory (where the host keeps other sessions' spill files and private
 * temp dirs). The first is where the command's own `/tmp` is mounted.
 */
export function hiddenTempRoots(): string[] {
  const configured = os.tmpdir();
  let tmp = realTempRoots.get(configured);
  if (tmp === undefined) {
    tmp = configured;
    try {
      tmp = fs.realpathSync.native(tmp);
      // Kept per configured path: the temp root is the host's, and does not move under a running server.
      realTempRoots.set(configured, tmp);
    } catch {
      // A missing TMPDIR hides nothing more (and is looked up again next time).
    }
  }
  return tmp === '/tmp' ? ['/tmp'] : ['/tmp', tmp];
}

const realTempRoots = new Map<string, string>();

/**
 * The mounts between the read-only root and `/dev`: a private `/tmp` (the
 * session's, else a fresh tmpfs), the OS temp dir masked, then the workspace
 * and the readable paths re-bound over the masks, and last the masks that
 * must cover the workspace too. Under `read-only` every temp mount is made
 * read-only after the binds that need mount points in it.
 */
export function tempAndWorkspaceFlags(sandbox: ResolvedSandbox): string[] {
  const writable = sandbox.mode === 'workspace-write';
  const root = sandbox.workspaceRoot;
  const [tmp, ...others] = hiddenTempRoots();
  const flags: string[] = [];
  if (sandbox.privateTmp !== undefined) flags.push('--bind', sandbox.privateTmp, tmp!);
  else flags.push('--tmpfs', tmp!);
  // A temp root inside the workspace is masked after the workspace is bound, or the bind would uncover it.
  const early = others.filter((dir) => !isWithin(dir, root) || dir === root);
  const late = others.filter((dir) => !early.includes(dir));
  for (const dir of early) flags.push('--tmpfs', dir);
  const hidden = [tmp!, ...early];
  if (writable) flags.push('--bind', root, root);
  else if (hidden.some((dir) => isWithin(root, dir))) flags.push('--ro-bind', root, root);
  for (const dir of late) flags.push('--tmpfs', dir);
  for (const file of sandbox.readable ?? []) flags.push('--ro-bind-try', file, file);
  if (!writable) for (const dir of [tmp!, ...others]) flags.push('--remount-ro', dir);
  return flags;
}

/**
 * With the network off: the runtime dirs become empty tmpfs and every other
 * socket the server knows of (SSH agent, Docker, D-Bus) is covered by
 * `/dev/null`, so nothing outside the sandbox answers; the agent variable
 * is removed. Paths that do not exist are left alone (bwrap would fail).
 */
export function socketMaskFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const flags: string[] = [];
  for (const dir of RUNTIME_DIRS) {
    if (isRealDirectory(dir)) flags.push('--tmpfs', dir);
  }
  const masked = [...RUNTIME_DIRS, ...hiddenTempRoots()];
  for (const socket of knownSocketPaths(env)) {
    if (!masked.some((dir) => isWithin(socket, dir))) flags.push('--ro-bind', '/dev/null', socket);
  }
  flags.push('--unsetenv', 'SSH_AUTH_SOCK');
  return flags;
}

/** Real paths of the unix sockets named by the server's environment. */
function knownSocketPaths(env: NodeJS.ProcessEnv): string[] {
  const named = [
    env.SSH_AUTH_SOCK,
    unixPath(env.DOCKER_HOST, /^unix:\/\/(.+)$/),
    unixPath(env.DBUS_SESSION_BUS_ADDRESS, /^unix:path=([^,;]+)/),
    unixPath(env.DBUS_SYSTEM_BUS_ADDRESS, /^unix:path=([^,;]+)/),
  ];
  const found = new Set<string>();
  for (const file of named) {
    if (file === undefined || !path.isAbsolute(file)) continue;
    try {
      const real = fs.realpathSync.native(file);
      if (!fs.statSync(real).isDirectory()) found.add(real);
    } catch {
      // Not there: nothing to mask.
    }
  }
  return [...found];
}

function unixPath(value: string | undefined, pattern: RegExp): string | undefined {
  return value === undefined ? undefined : pattern.exec(value)?.[1];
}

function isRealDirectory(dir: string): boolean {
  try {
    return fs.lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}
