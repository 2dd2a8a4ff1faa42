import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';

/** Where the bearer token came from; `generated` tokens live in a file the server removes at stop. */
export type TokenSource = 'env' | 'file' | 'generated';

/** The server's bearer token: checked per request, never compared as a string. */
export interface HttpToken {
  readonly source: TokenSource;
  /** Set for a generated token: the 0600 file holding it (inside a private 0700 directory). */
  readonly file?: string;
  /** Something the operator should fix, e.g. a `--token-file` other users can read. */
  readonly warning?: string;
  /** True when `header` (an `Authorization` value) carries this token with the Bearer scheme. */
  matches(header: string | undefined): boolean;
  /** Removes a generated token's file and directory; a no-op for the others. */
  dispose(): void;
}

/** The environment variable read for the token. */
export const TOKEN_ENV = 'DSH_HTTP_TOKEN';
/** A guessable token defeats the point: refuse short ones. */
const MIN_TOKEN_CHARS = 16;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export interface TokenOptions {
  /** `--token-file`: read the token from this file (trimmed). */
  readonly tokenFile?: string;
  /** The process environment (default `process.env`); `DSH_HTTP_TOKEN` is read from it. */
  readonly env?: NodeJS.ProcessEnv;
  /** Parent of the private directory of a generated token (default: the OS temp directory). */
  readonly tmpDir?: string;
}

/**
 * The token the HTTP server requires: `--token-file`, else `DSH_HTTP_TOKEN`,
 * else a fresh random one written to `<tmp>/dsh-http-XXXXXX/token` (directory
 * 0700, file 0600, created exclusively). Throws a clear error for an
 * unreadable file or a token that is too short or holds whitespace.
 */
export function resolveHttpToken(options: TokenOptions = {}): HttpToken {
  const env = options.env ?? process.env;
  if (options.tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.tokenFile, 'utf8');
    } catch (error) {
      throw new Error(`cannot read --token-file ${options.tokenFile} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    const token = tokenOf(checked(text.trim(), `--token-file ${options.tokenFile}`), 'file');
    // Readable by others, the file hands the token to exactly the users it should keep out.
    const exposed = (statSync(options.tokenFile).mode & 0o044) !== 0;
    return exposed ? { ...token, warning: `--token-file ${options.tokenFile} is readable by group or others: chmod 600 it` } : token;
  }
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return tokenOf(checked(fromEnv.trim(), TOKEN_ENV), 'env');

  const secret = randomBytes(32).toString('base64url');
  // mkdtemp creates the directory 0700; the file is created exclusively, 0600, so nothing pre-placed is reused.
  const dir = mkdtempSync(path.join(options.tmpDir ?? os.tmpdir(), 'dsh-http-'));
  const file = path.join(dir, 'token');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return tokenOf(secret, 'generated', file, () => rmSync(dir, { recursive: true, force: true }));
}

function checked(token: string, where: string): string {
  if (token.length < MIN_TOKEN_CHARS) throw new Error(`the HTTP token from ${where} is too short (at least ${MIN_TOKEN_CHARS} characters)`);
  if (/\s/.test(token)) throw new Error(`the HTTP token from ${where} contains whitespace`);
  return token;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function tokenOf(secret: string, source: TokenSource, file?: string, remove?: () => void): HttpToken {
  const expected = digest(secret);
  return {
    source,
    ...(file !== undefined ? { file } : {}),
    matches: (header) => {
      const presented = header === undefined ? undefined : BEARER.exec(header)?.[1];
      // Digests have equal length whatever was sent, so the compare takes the same time for every guess.
      return timingSafeEqual(expected, digest(presented ?? '')) && presented !== undefined;
    },
    dispose: () => remove?.(),
  };
}

/** The request's `Authorization` header (the first, if repeated). */
export function authorizationOf(req: IncomingMessage): string | undefined {
  const value = req.headers.authorization;
  return Array.isArray(value) ? value[0] : value;
}
