import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seccompFilterBytes } from './seccomp-filter.js';

let cached: string | undefined;

/**
 * The compiled filter on disk, for the host-side prelude to open as bwrap's
 * `--seccomp` descriptor. It lives in a directory of this user's own (mode
 * 0700, checked: not a link, not someone else's), under a name that is the
 * hash of its bytes, so no other user can swap it, a second server reuses
 * it, and a killed server leaves at most this one small file behind.
 */
export function seccompFilterFile(): string {
  if (cached !== undefined && fs.existsSync(cached)) return cached;
  const bytes = seccompFilterBytes();
  const name = `filter-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.bpf`;
  const file = path.join(privateDir(), name);
  if (!sameContent(file, bytes)) {
    const staging = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(staging, bytes, { mode: 0o400 });
    fs.renameSync(staging, file);
  }
  cached = file;
  return file;
}

function privateDir(): string {
  const uid = process.getuid?.() ?? 0;
  const dir = path.join(os.tmpdir(), `dsh-tools-seccomp-${uid}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const info = fs.lstatSync(dir);
  if (info.isDirectory() && info.uid === uid && (info.mode & 0o077) === 0) return dir;
  // Squatted or loosened by someone else: a fresh directory of our own instead.
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-tools-seccomp-'));
}

function sameContent(file: string, bytes: Buffer): boolean {
  try {
    return fs.readFileSync(file).equals(bytes);
  } catch {
    return false;
  }
}
