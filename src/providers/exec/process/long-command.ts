/**
 * Linux caps each execve argument at MAX_ARG_STRLEN (32 pages: 131,072 bytes
 * with its NUL), so a longer `bash -c <command>` fails with E2BIG. Such a
 * command is handed to bash as data instead, on a private pipe at fd 3 that
 * only this spawn holds: nothing on disk that another process could swap.
 */
export const MAX_ARG_BYTES = 131_071;

/** The fd the long command arrives on; closed before the command runs. */
export const COMMAND_FD = 3;

/**
 * Reads the command from fd 3 and runs it with eval, with fd 3 closed for
 * the command. `cat` reads it: the descriptor is a socket (node's stdio
 * pipes), which `/dev/fd/3` cannot open and bash's `read` takes byte by byte. `$0`, `$#`,
 * `$LINENO`, exit codes and `exit` behave as under `bash -c`; a syntax error
 * still exits 2, though bash names it `eval` instead of `-c: line N`.
 * Command substitution drops trailing newlines, which never change a command.
 */
export const READ_COMMAND_SCRIPT = `eval "$(cat <&${COMMAND_FD})" ${COMMAND_FD}<&-`;

/** True when `command` cannot be passed as one argv string. Cheap for short commands. */
export function exceedsArgLimit(command: string): boolean {
  // A UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair is 4 for 2 units).
  if (command.length * 3 <= MAX_ARG_BYTES) return false;
  return Buffer.byteLength(command, 'utf8') > MAX_ARG_BYTES;
}

/** stdio with the long command on its private pipe at `COMMAND_FD` (see long-command.ts). */
export function commandPipeStdio(command: string, stdin: string | undefined): { stdio: Array<'ignore' | 'pipe' | Uint8Array> } {
  const stdio: Array<'ignore' | 'pipe' | Uint8Array> = [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'];
  stdio[COMMAND_FD] = Buffer.from(command, 'utf8');
  return { stdio };
}
