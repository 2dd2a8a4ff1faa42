/**
 * The wire protocol between the PTY backend and its interactive bash: how a
 * command is framed on one physical input line and which byte sequences mark
 * its start, its end (carrying `$?`) and a return to the prompt.
 *
 * Markers are `\x1f<kind><token>[:<status>]\x1f`. The shell prints them with
 * `printf '\037…'`, so the marker bytes never appear in the command text (or
 * its echo, or `declare -f`): the command line holds the four characters
 * `\037`, not the byte. Tokens are random per call (start/end) or per shell
 * (prompt), so output cannot imitate them by accident.
 */
import { randomBytes } from 'node:crypto';

export const MARK = '\x1f';

/** Name of the shell function printed before every primary prompt (via PROMPT_COMMAND). */
export const PROMPT_HOOK = '__dsh_prompt';

/** Index of the hook in the PROMPT_COMMAND array (bash ≥ 5.1): clear of what users usually set. */
const HOOK_INDEX = 99;

/** Input lines longer than this (in bytes) are handed over through a private file instead. */
export const MAX_INLINE_BYTES = 3500;

/** 16 hex characters from a CSPRNG. */
export function newToken(): string {
  return randomBytes(8).toString('hex');
}

export const startMarker = (nonce: string): string => `${MARK}S${nonce}${MARK}`;
export const endPrefix = (nonce: string): string => `${MARK}E${nonce}:`;
export const promptPrefix = (secret: string): string => `${MARK}P${secret}:`;
export const readyMarker = (nonce: string): string => `${MARK}R${nonce}${MARK}`;

/**
 * Quotes any string as a bash ANSI-C literal (`$'…'`) made of printable
 * characters only, so the terminal's line discipline sees no control bytes
 * and the whole text stays on one physical line.
 */
export function ansiCQuote(text: string): string {
  let out = "$'";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\' || ch === "'") out += `\\${ch}`;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

/**
 * The one-time setup line: echo off, no history, the prompt hook that
 * reports `$?` when bash returns to its prompt (also after a line that was
 * aborted, e.g. by SIGINT, where the end marker never prints), then the ready
 * marker.
 */
export function initLine(secret: string, readyNonce: string): string {
  const hook =
    `${PROMPT_HOOK}() { local s=$?; printf '\\037P%s:%d\\037' ${secret} "$s" >/dev/tty; return $s; }`;
  const install =
    `if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 501)); ` +
    `then PROMPT_COMMAND=(); PROMPT_COMMAND[${HOOK_INDEX}]=${PROMPT_HOOK}; else PROMPT_COMMAND=${PROMPT_HOOK}; fi`;
  return (
    `stty -echo 2>/dev/null; set +o history; HISTFILE=/dev/null; ${hook}; ${install}; ` +
    `printf '\\037R%s\\037' ${readyNonce}\n`
  );
}

/** The `export` / `unset` statements that apply `env` (names that are not shell identifiers are skipped). */
export function envStatements(env: Readonly<Record<string, string>> = {}): string[] {
  const statements: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    statements.push(value === '' ? `unset ${name}` : `export ${name}=${ansiCQuote(value)}`);
  }
  return statements;
}

/**
 * Frames one command: exports, start marker, the command under `eval` (so a
 * syntax error stays inside the call), end marker with `$?`. The command
 * travels as an ANSI-C literal or, when `files` is given (long lines), through
 * variables the `read` builtin fills from those files (no fork): `files.env`
 * holds `envStatements(env)`, `files.command` the command.
 */
export function commandLine(
  nonce: string,
  command: string,
  options: { env?: Readonly<Record<string, string>>; files?: { readonly env: string; readonly command: string } } = {},
): string {
  const parts: string[] = [
    // Re-install the prompt hook if a command replaced the PROMPT_COMMAND array (bash ≥ 5.1 only).
    `((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] < 501)) || [[ \${PROMPT_COMMAND[${HOOK_INDEX}]-} == ${PROMPT_HOOK} ]] || PROMPT_COMMAND[${HOOK_INDEX}]=${PROMPT_HOOK}`,
  ];
  const { files } = options;
  if (files !== undefined) {
    parts.push(`IFS= read -r -d '' __dsh_env <${ansiCQuote(files.env)}`, `eval "$__dsh_env"`);
  } else {
    parts.push(...envStatements(options.env));
  }
  parts.push(`printf '\\037S%s\\037' ${nonce} >/dev/tty`);
  if (files !== undefined) {
    parts.push(`IFS= read -r -d '' __dsh_cmd <${ansiCQuote(files.command)}`);
    parts.push(`eval "$__dsh_cmd"`);
  } else {
    parts.push(`eval ${ansiCQuote(command)}`);
  }
  // The group's stderr redirect keeps a user's `set -x` trace of this printf out of the output.
  parts.push(`{ printf '\\037E%s:%d\\037' ${nonce} "$?" >/dev/tty; } 2>/dev/null`);
  return `${parts.join('; ')}\n`;
}

/** Control keys a model can send to a program waiting for input. */
export const CONTROL_INPUTS: Readonly<Record<string, string>> = Object.freeze({ '^C': '\x03', '^D': '\x04' });

/** What to write for a line of input to a waiting program. */
export function inputBytes(text: string): string {
  return CONTROL_INPUTS[text.trim()] ?? `${text.replace(/\r?\n$/, '')}\n`;
}
