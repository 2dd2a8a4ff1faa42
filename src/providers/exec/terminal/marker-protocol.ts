/**
 * The wire protocol between the PTY backend and its interactive bash: how a
 * command is framed and which byte sequences mark its start, its end
 * (carrying `$?`) and a return to the prompt. Why the frame holds against
 * whatever the user's commands redefine: docs/persistent-shell-framing.md.
 *
 * Markers are `\x1f<kind>…\x1f`. The shell produces them from the four
 * characters `\037` (printf format or prompt escape), so the marker bytes
 * never appear in the command text, its echo or `declare -p`. Per-call
 * nonces (`S`/`E`) and a per-shell secret (`B`/`P`) make accidental
 * imitation by output practically impossible.
 *
 *  - `S<nonce>` (printf, /dev/tty): the command starts now.
 *  - `E<nonce>:<status>` (printf, /dev/tty): the command ended.
 *  - `B<secret>` (PS0, stderr): bash read a line and starts running it.
 *  - `P<secret>:<nonce>:<status>` (PS1, stderr): bash is back at its prompt;
 *    `<nonce>` is the last call whose frame ran (empty or older: the frame
 *    of this call never ran).
 * Each pair backs up the other: printf can be shadowed by a function, the
 * prompts silenced by `exec 2>/dev/null`.
 */
import { randomBytes } from 'node:crypto';

export const MARK = '\x1f';

/** Readonly function that prints the end marker and returns the command's status. */
const END_FUNCTION = '__dsh_end';
/** Readonly variable holding the per-shell secret the prompts print. */
const SECRET_VAR = '__dsh_tag';
/** Variable the frame sets to its nonce; PS1 prints it. */
const SEEN_VAR = '__dsh_seen';

/** Quoted text per physical input line: a canonical-mode terminal line holds 4095 bytes. */
const MAX_PIECE_BYTES = 3000;

/** 16 hex characters from a CSPRNG. */
export function newToken(): string {
  return randomBytes(8).toString('hex');
}

export const startMarker = (nonce: string): string => `${MARK}S${nonce}${MARK}`;
export const endPrefix = (nonce: string): string => `${MARK}E${nonce}:`;
export const beginMarker = (secret: string): string => `${MARK}B${secret}${MARK}`;
export const promptPrefix = (secret: string): string => `${MARK}P${secret}:`;
const readyMarker = (nonce: string): string => `${MARK}R${nonce}${MARK}`;

/** One character as it goes inside `$'…'`: printable, and no `!` (history expansion, if a user enables it). */
function quoteChar(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (ch === '\\' || ch === "'") return `\\${ch}`;
  if (code < 0x20 || code === 0x7f || ch === '!') return `\\x${code.toString(16).padStart(2, '0')}`;
  return ch;
}

/**
 * Quotes any string as a bash ANSI-C literal (`$'…'`) made of printable
 * characters only, so the terminal's line discipline sees no control bytes.
 */
export function ansiCQuote(text: string): string {
  let out = "$'";
  for (const ch of text) out += quoteChar(ch);
  return `${out}'`;
}

/** `text` as adjacent `$'…'` pieces of at most `maxBytes` quoted bytes each (together still one word). */
function ansiCQuotePieces(text: string, maxBytes = MAX_PIECE_BYTES): string[] {
  const pieces: string[] = [];
  let piece = '';
  let bytes = 0;
  for (const ch of text) {
    const quoted = quoteChar(ch);
    const size = Buffer.byteLength(quoted);
    if (bytes + size > maxBytes && piece !== '') {
      pieces.push(`$'${piece}'`);
      piece = '';
      bytes = 0;
    }
    piece += quoted;
    bytes += size;
  }
  pieces.push(`$'${piece}'`);
  return pieces;
}

/**
 * Joins the parts of one word, breaking the physical line with
 * backslash-newline (a continuation bash removes) wherever a line would
 * exceed what a canonical-mode terminal accepts.
 */
function packWord(parts: readonly string[], maxLineBytes = MAX_PIECE_BYTES + 200): string {
  let out = '';
  let lineBytes = 0;
  for (const part of parts) {
    const size = Buffer.byteLength(part);
    if (lineBytes > 0 && lineBytes + size > maxLineBytes) {
      out += '\\\n';
      lineBytes = 0;
    }
    out += part;
    lineBytes += size;
  }
  return out;
}

/** Readonly variables: the terminal modes the shell started with (`stty -g`), and the `stty` that restores them. */
const MODES_VAR = '__dsh_modes';
const STTY_VAR = '__dsh_stty';

/**
 * A marker write on the `printf` channel. `printf` is not a special builtin,
 * so a user's function of that name (or of `builtin`) may see and rewrite it:
 * that channel is a hint, not a proof. The prompts (`PS0`, `PS1`) are written
 * by bash itself and no function reaches them; a rewritten or stale marker
 * never reaches a result (the parser drops marker-shaped bytes that are not
 * this call's). Keeping `printf` out of every function's reach would take a
 * subshell per write: two forks per call, measured 1.3 ms → 16 ms a call
 * (docs/persistent-shell-framing.md, rule 5).
 */
function markerWrite(format: string, args: string): string {
  return `\\printf '${format}' ${args} >/dev/tty 2>/dev/null`;
}

/**
 * The terminal modes the frame relies on (canonical lines, no echo,
 * signals) belong to the host: after every command, before bash reads its
 * next line, they are set back to what they were at start (a command's
 * `stty -icanon min 0 time 0` would make that read return EOF and the shell
 * exit). `exec` takes no function; no `stty` at start, no restore.
 */
const RESTORE_MODES = `case $${STTY_VAR} in /*) \\exec "$${STTY_VAR}" "$${MODES_VAR}" </dev/tty;; esac; \\exit 0`;

const PS0_VALUE = `\\037B\${${SECRET_VAR}}\\037`;
const PS1_VALUE = `\\037P\${${SECRET_VAR}}:\${${SEEN_VAR}-}:$?\\037`;
/** Puts the marker prompts back (a command may have changed them) and keeps them out of children's environment. */
const PROMPTS = `PS0=${ansiCQuote(PS0_VALUE)} PS1=${ansiCQuote(PS1_VALUE)}; \\export -n PS0 PS1`;

/**
 * The one-time setup line, run by a fresh shell before any user command:
 * echo and history off, the readonly secret and end function, the marker
 * prompts, then the ready marker.
 */
function initLine(secret: string, readyNonce: string): string {
  return (
    `stty -echo 2>/dev/null; set +o history; HISTFILE=/dev/null; PROMPT_COMMAND=; ` +
    `readonly ${SECRET_VAR}=${secret}; ${SEEN_VAR}=; ` +
    `readonly ${STTY_VAR}="$(command -v stty)" ${MODES_VAR}="$(stty -g 2>/dev/null)"; ` +
    `${END_FUNCTION}() { (POSIXLY_CORRECT=y; ${RESTORE_MODES}) 2>/dev/null; ${markerWrite('\\037E%s:%d\\037', '"$1" "$2"')}; \\return "$2"; }; readonly -f ${END_FUNCTION}; ` +
    `${PROMPTS}; printf '\\037R%s\\037' ${readyNonce}\n`
  );
}

/** A line for the shell and the marker that says it ran: what came before the marker is not ours. */
export interface Handshake {
  readonly line: string;
  readonly marker: string;
}

/** The setup line (`initLine`) of a fresh shell with `secret`, and its ready marker. */
export function setupHandshake(secret: string): Handshake {
  const nonce = newToken();
  return { line: initLine(secret, nonce), marker: readyMarker(nonce) };
}

/**
 * Resynchronizes with a shell set up with `secret`, maybe by another host
 * (shared-shell.ts): the marker prompts put back and the seen nonce set, so
 * bash's next prompt carries the nonce; what comes before it is leftovers.
 */
export function syncHandshake(secret: string): Handshake {
  const nonce = newToken();
  return { line: `${PROMPTS}; ${SEEN_VAR}=${nonce}\n`, marker: `${promptPrefix(secret)}${nonce}:` };
}

/** The `export` / `unset` statements that apply `env` (names that are not shell identifiers are skipped). */
function envStatements(env: Readonly<Record<string, string>> = {}): string[] {
  const statements: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) continue;
    statements.push(value === '' ? `\\unset ${name}` : `\\export ${name}=${ansiCQuote(value)}`);
  }
  return statements;
}

/**
 * Frames one command. `POSIXLY_CORRECT=:$SHELLOPTS:` is a plain assignment
 * (no alias or function can intercept it) that turns POSIX mode on, so the
 * special builtin `eval` is found before any function of that name (`\eval`
 * is no alias), and it remembers the user's options. The frame, in that
 * eval: env exports and the prompts, each in its own eval (a failure stays
 * there); then an inner eval that restores the user's POSIX setting,
 * prints the start marker and runs the command (a syntax error stays
 * inside it); last the readonly end function with the command's status.
 */
export function commandLine(nonce: string, command: string, options: { env?: Readonly<Record<string, string>> } = {}): string {
  const prelude = [...envStatements(options.env), PROMPTS, `${SEEN_VAR}=${nonce}`].map((s) => `\\eval ${ansiCQuote(s)}`);
  const restore = 'case $POSIXLY_CORRECT in *:posix:*) POSIXLY_CORRECT=y;; *) \\set +o posix;; esac';
  const body = `${restore}; ${markerWrite('\\037S%s\\037', nonce)}\n${command}`;
  const frame = `${prelude.join('; ')}; \\eval ${ansiCQuote(body)}; { \\${END_FUNCTION} ${nonce} "$?"; } 2>/dev/null`;
  return `POSIXLY_CORRECT=:$SHELLOPTS:; \\eval ${packWord(ansiCQuotePieces(frame))}\n`;
}

/** Control keys a model can send to a program waiting for input. */
const CONTROL_INPUTS: Readonly<Record<string, string>> = Object.freeze({ '^C': '\x03', '^D': '\x04' });

/** What to write for a line of input to a waiting program. */
export function inputBytes(text: string): string {
  return CONTROL_INPUTS[text.trim()] ?? `${text.replace(/\r?\n$/, '')}\n`;
}
