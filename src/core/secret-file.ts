import { readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';

/**
 * The checks every secret file of the server gets (`--token-file`, the
 * approval webhook's `secretFile`): refused when another user could have
 * written it (a world-writable file, or a world-writable directory without
 * the sticky bit); warned about when group-writable or owned by a third
 * user; noted when every local user can read it. `label` names the setting
 * in every message.
 */
export function checkSecretFile(label: string, file: string, stat: Stats, warnings: string[], notes: string[]): void {
  const mode = stat.mode & 0o777;
  if (mode & 0o002) throw new Error(`${label} ${file} is writable by every user (mode ${octal(mode)}): anyone could replace the token; chmod o-w it`);
  const uid = process.getuid?.();
  if (mode & 0o020) warnings.push(`${label} ${file} is group-writable (mode ${octal(mode)}): chmod g-w it`);
  if (stat.uid !== 0 && uid !== undefined && stat.uid !== uid) {
    warnings.push(`${label} ${file} is owned by uid ${stat.uid}, neither root nor this server's user: that user can change the token`);
  }
  if (mode & 0o004) notes.push(`${label} ${file} is readable by every local user (mode ${octal(mode)}): fine in a container, chmod 600 it on a shared machine`);
}

/** Refuses a directory anyone may replace entries of (world-writable without the sticky bit). */
export function checkSecretDirectory(label: string, dir: string, where: string): void {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) return;
  const mode = stat.mode & 0o7777;
  if (mode & 0o002 && !(mode & 0o1000)) {
    throw new Error(`${label} ${where}: the directory ${dir} is writable by every user without the sticky bit (mode ${octal(mode)}): anyone could replace the token`);
  }
}

export function statSecret(label: string, file: string): Stats {
  try {
    return statSync(file);
  } catch (error) {
    throw new Error(`cannot read ${label} ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

export function readSecret(label: string, file: string, stat: Stats): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const uid = process.getuid?.();
    // The usual container mistake: a root-owned 0600 secret and a non-root server.
    const hint =
      code === 'EACCES' && uid !== undefined
        ? `: it is owned by uid ${stat.uid} gid ${stat.gid} with mode ${octal(stat.mode & 0o777)} and this server runs as uid ${uid}; ` +
          'make it readable by a group the server is in (Kubernetes: fsGroup with defaultMode 0440) or mount it 0444'
        : '';
    throw new Error(`cannot read ${label} ${file} (${code})${hint}`);
  }
}

/** One secret file, checked as above: its trimmed content and what the operator should hear. */
export function readSecretFile(label: string, file: string): { secret: string; warnings: string[]; notes: string[] } {
  const warnings: string[] = [];
  const notes: string[] = [];
  const stat = statSecret(label, file);
  checkSecretDirectory(label, path.dirname(path.resolve(file)), file);
  if (!stat.isFile()) throw new Error(`${label} ${file} is not a regular file`);
  checkSecretFile(label, file, stat, warnings, notes);
  return { secret: readSecret(label, file, stat).trim(), warnings, notes };
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}
