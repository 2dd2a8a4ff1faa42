import { readdirSync } from 'node:fs';
import path from 'node:path';
import { checkSecretDirectory, checkSecretFile, readSecret, statSecret } from '../../core/secret-file.js';

const LABEL = '--token-file';

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
  const stat = statSecret(LABEL, where);
  checkSecretDirectory(LABEL, path.dirname(path.resolve(where)), where);
  if (!stat.isDirectory()) {
    checkSecretFile(LABEL, where, stat, warnings, notes);
    return { secrets: parseTokenText(readSecret(LABEL, where, stat), where), warnings, notes };
  }
  checkSecretDirectory(LABEL, where, where);
  const secrets: NamedSecret[] = [];
  for (const name of readdirSync(where).sort()) {
    if (name.startsWith('.')) continue;
    const file = path.join(where, name);
    const entry = statSecret(LABEL, file);
    if (!entry.isFile()) continue;
    if (!CALLER_NAME.test(name)) throw new Error(`--token-file ${file}: "${name}" is not a caller name (letters, digits, . _ -; at most 64)`);
    checkSecretFile(LABEL, file, entry, warnings, notes);
    secrets.push({ name, secret: readSecret(LABEL, file, entry).trim() });
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
