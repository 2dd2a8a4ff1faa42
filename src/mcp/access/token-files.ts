import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';

/** One caller's bearer token as read from `--token-file`. */
export interface NamedSecret {
  readonly name: string;
  readonly secret: string;
}

/** What `--token-file` held, and what the operator should hear about it. */
interface TokenFileContents {
  readonly secrets: readonly NamedSecret[];
  /** Something worth fixing that does not stop the server (e.g. a group-writable file). */
  readonly warnings: readonly string[];
  /** Facts worth a line at info level (a file every local user can read: fine in a container). */
  readonly notes: readonly string[];
}

/** The caller name a single token (a file holding just the token, or `DSH_HTTP_TOKEN`) stands for. */
export const DEFAULT_CALLER = 'default';
const CALLER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Reads `--token-file`: a file holding one token (caller `default`) or
 * `name:token` lines (blank lines and `#` comments skipped), or a directory
 * whose files are one token each, named after their caller — the layout of a
 * Kubernetes Secret volume, whose `..data` links and dot-directories are
 * skipped. Files are read through symlinks. Refuses what another user could
 * have written: a world-writable file, or a world-writable directory without
 * the sticky bit (tmpfs Secret volumes are 1777: others can add there but
 * not replace root's entries).
 */
export function readTokenFile(where: string): TokenFileContents {
  const warnings: string[] = [];
  const notes: string[] = [];
  const stat = statOrThrow(where);
  checkDirectory(path.dirname(path.resolve(where)), where);
  if (!stat.isDirectory()) {
    checkFile(where, stat, warnings, notes);
    return { secrets: parseTokenText(readOrThrow(where, stat), where), warnings, notes };
  }
  checkDirectory(where, where);
  const secrets: NamedSecret[] = [];
  for (const name of readdirSync(where).sort()) {
    if (name.startsWith('.')) continue;
    const file = path.join(where, name);
    const entry = statOrThrow(file);
    if (!entry.isFile()) continue;
    if (!CALLER_NAME.test(name)) throw new Error(`--token-file ${file}: "${name}" is not a caller name (letters, digits, . _ -; at most 64)`);
    checkFile(file, entry, warnings, notes);
    secrets.push({ name, secret: readOrThrow(file, entry).trim() });
  }
  if (secrets.length === 0) throw new Error(`--token-file ${where} is a directory without token files`);
  return { secrets, warnings, notes };
}

/** One bare token (caller `default`), or `name:token` lines. */
function parseTokenText(text: string, where: string): NamedSecret[] {
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  if (lines.length === 1 && !lines[0]!.includes(':')) return [{ name: DEFAULT_CALLER, secret: lines[0]! }];
  if (lines.length === 0) return [{ name: DEFAULT_CALLER, secret: '' }];
  const secrets = lines.map((line, index) => {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (!CALLER_NAME.test(name)) {
      throw new Error(`--token-file ${where}: line ${index + 1} is not "name:token" (names: letters, digits, . _ -; at most 64)`);
    }
    return { name, secret: line.slice(colon + 1).trim() };
  });
  return secrets;
}

function checkFile(file: string, stat: Stats, warnings: string[], notes: string[]): void {
  const mode = stat.mode & 0o777;
  if (mode & 0o002) throw new Error(`--token-file ${file} is writable by every user (mode ${octal(mode)}): anyone could replace the token; chmod o-w it`);
  const uid = process.getuid?.();
  if (mode & 0o020) warnings.push(`--token-file ${file} is group-writable (mode ${octal(mode)}): chmod g-w it`);
  if (stat.uid !== 0 && uid !== undefined && stat.uid !== uid) {
    warnings.push(`--token-file ${file} is owned by uid ${stat.uid}, neither root nor this server's user: that user can change the token`);
  }
  if (mode & 0o004) notes.push(`--token-file ${file} is readable by every local user (mode ${octal(mode)}): fine in a container, chmod 600 it on a shared machine`);
}

function checkDirectory(dir: string, where: string): void {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) return;
  const mode = stat.mode & 0o7777;
  if (mode & 0o002 && !(mode & 0o1000)) {
    throw new Error(`--token-file ${where}: the directory ${dir} is writable by every user without the sticky bit (mode ${octal(mode)}): anyone could replace the token`);
  }
}

function statOrThrow(file: string): Stats {
  try {
    return statSync(file);
  } catch (error) {
    throw new Error(`cannot read --token-file ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

function readOrThrow(file: string, stat: Stats): string {
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
    throw new Error(`cannot read --token-file ${file} (${code})${hint}`);
  }
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}
