import path from 'node:path';

/**
 * The server's own files that no command may read, in any composition
 * (docs/security.md#hidden-server-files): token files, the config file, the
 * audit log. The CLI records them as it reads its options; the bwrap
 * sandbox masks them and session containers never see them. Process-wide
 * like the temp roots they join: they belong to the server, not to a host.
 */
const files = new Set<string>();

/** Records `file` (made absolute) as one of the server's own files. */
export function hideServerFile(file: string | undefined): void {
  if (file === undefined || file === '' || file.includes('\0')) return;
  files.add(path.resolve(file));
}

/** Every file recorded so far. */
export function serverFiles(): readonly string[] {
  return [...files];
}

/** Forgets `file` (tests, and a server that stops using it). */
export function forgetServerFile(file: string): void {
  files.delete(path.resolve(file));
}
