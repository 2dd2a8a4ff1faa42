import { describeValue } from './describe-value.js';

/**
 * Paths inside a writable workspace that stay read-only for every confined
 * command (docs/security.md#protected-paths): what they hold is run by the
 * host's own tools without asking — git runs `core.fsmonitor`, hooks and
 * aliases from `.git`, direnv loads `.envrc`, editors run `.vscode` tasks
 * and settings. A command that could write them would plant code the host
 * runs outside any sandbox.
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = Object.freeze(['.git', '.envrc', '.vscode']);

/**
 * Checks a `protectedPaths` list: relative paths, no `..`, no empty or NUL
 * entry; duplicates and trailing slashes dropped. Returns the problem or the list.
 */
export function checkProtectedPaths(value: unknown): { readonly paths: readonly string[] } | { readonly problem: string } {
  if (!Array.isArray(value)) return { problem: `must be a list of paths relative to the workspace, got ${describeValue(value)}` };
  const paths: string[] = [];
  for (const entry of value) {
    const clean = typeof entry === 'string' ? entry.replace(/\/+$/, '').replace(/^(\.\/)+/, '') : '';
    const parts = clean.split('/');
    if (clean === '' || clean.includes('\0') || clean.startsWith('/') || parts.some((part) => part === '..' || part === '.' || part === '')) {
      return { problem: `entry ${describeValue(entry)} must be a path inside the workspace (relative, without . or ..)` };
    }
    if (!paths.includes(clean)) paths.push(clean);
  }
  return { paths: Object.freeze(paths) };
}

/** The sentence the sandbox and container prompt sections say about `paths` (empty: none). */
export function protectedPathsPrompt(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  const list = paths.map((entry) => `\`${entry}\``).join(', ');
  return (
    `These workspace paths stay read-only even when the workspace is writable, because the host's own tools run what they hold: ${list}. ` +
    'Do not try to change them (a write fails with "Read-only file system"); tell the user what change is needed instead.'
  );
}
