import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import { DEFAULT_CALLER, readTokenFile, type NamedSecret } from './token-files.js';

/** Where the bearer tokens came from; `generated` tokens live in a file the server removes at stop. */
type TokenSource = 'env' | 'file' | 'generated';

/** The server's bearer tokens, each naming a caller: checked per request, never compared as a string. */
export interface HttpToken {
  readonly source: TokenSource;
  /** Set for a generated token: the 0600 file holding it (inside a private 0700 directory). */
  readonly file?: string;
  /** Something the operator should fix, e.g. a group-writable `--token-file` (several joined by `; `). */
  readonly warning?: string;
  /** Facts for the info log, e.g. a token file every local user can read. */
  readonly notes?: readonly string[];
  /** The caller names, in file order (`default` for a single token). */
  readonly callers: readonly string[];
  /** The caller whose token `header` (an `Authorization` value) carries with the Bearer scheme; undefined for none. */
  callerOf(header: string | undefined): string | undefined;
  /** True when `header` carries one of the tokens. */
  matches(header: string | undefined): boolean;
  /**
   * A secret every server holding exactly these tokens derives alike, and
   * nobody knowing only some of them can: SHA-256 over `label` and the
   * sorted `name:token` lines (replicas sign what they hand a client with it).
   */
  derivedKey?(label: string): Buffer;
  /** Removes a generated token's file and directory; a no-op for the others. */
  dispose(): void;
}

/** The environment variable read for the token. */
const TOKEN_ENV = 'DSH_HTTP_TOKEN';
/** A guessable token defeats the point: refuse short ones. */
const MIN_TOKEN_CHARS = 16;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
/** Words of a token copied from an example instead of generated: a deployment left with one is open to anyone who read the docs. */
const PLACEHOLDER = /replace|example|changeme|change-me|placeholder|your[-_]?token|secret-token|xxxxxxxx/i;

export interface TokenOptions {
  /** `--token-file`: one token, `name:token` lines, or a directory of token files (see token-files.ts). */
  readonly tokenFile?: string;
  /** The process environment (default `process.env`); `DSH_HTTP_TOKEN` is read from it. */
  readonly env?: NodeJS.ProcessEnv;
  /** Parent of the private directory of a generated token (default: the OS temp directory). */
  readonly tmpDir?: string;
}

/**
 * The tokens the HTTP server requires: `--token-file`, else `DSH_HTTP_TOKEN`
 * (caller `default`), else a fresh random one written to
 * `<tmp>/dsh-http-XXXXXX/token` (directory 0700, file 0600, created
 * exclusively). Throws a clear error for an unreadable or world-writable
 * file, a token that is too short or holds whitespace, or a token or caller
 * name used twice.
 */
export function resolveHttpToken(options: TokenOptions = {}): HttpToken {
  const env = options.env ?? process.env;
  if (options.tokenFile !== undefined) {
    const read = readTokenFile(options.tokenFile);
    const secrets = checkedAll(read.secrets, `--token-file ${options.tokenFile}`);
    const token = tokensOf(secrets, 'file');
    return {
      ...token,
      ...(read.warnings.length > 0 ? { warning: read.warnings.join('; ') } : {}),
      ...(read.notes.length > 0 ? { notes: read.notes } : {}),
    };
  }
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    return tokensOf([{ name: DEFAULT_CALLER, secret: checked(fromEnv.trim(), TOKEN_ENV) }], 'env');
  }

  const secret = randomBytes(32).toString('base64url');
  // mkdtemp creates the directory 0700; the file is created exclusively, 0600, so nothing pre-placed is reused.
  const dir = mkdtempSync(path.join(options.tmpDir ?? os.tmpdir(), 'dsh-http-'));
  const file = path.join(dir, 'token');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return tokensOf([{ name: DEFAULT_CALLER, secret }], 'generated', file, () => rmSync(dir, { recursive: true, force: true }));
}

function checkedAll(secrets: readonly NamedSecret[], where: string): NamedSecret[] {
  const names = new Set<string>();
  const values = new Set<string>();
  return secrets.map(({ name, secret }) => {
    const label = secrets.length === 1 && name === DEFAULT_CALLER ? where : `${where} (caller ${name})`;
    checked(secret, label);
    if (names.has(name)) throw new Error(`${where}: the caller name "${name}" appears twice`);
    // One token for two callers would make the name a guess.
    if (values.has(secret)) throw new Error(`${where}: caller "${name}" has the same token as another caller`);
    names.add(name);
    values.add(secret);
    return { name, secret };
  });
}

function checked(token: string, where: string): string {
  if (token.length < MIN_TOKEN_CHARS) throw new Error(`the HTTP token from ${where} is too short (at least ${MIN_TOKEN_CHARS} characters)`);
  if (/\s/.test(token)) throw new Error(`the HTTP token from ${where} contains whitespace`);
  if (PLACEHOLDER.test(token)) throw new Error(`the HTTP token from ${where} looks like a placeholder: generate one (e.g. openssl rand -hex 32)`);
  return token;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function tokensOf(secrets: readonly NamedSecret[], source: TokenSource, file?: string, remove?: () => void): HttpToken {
  const expected = secrets.map(({ name, secret }) => ({ name, digest: digest(secret) }));
  const callerOf = (header: string | undefined): string | undefined => {
    const presented = header === undefined ? undefined : BEARER.exec(header)?.[1];
    const sent = digest(presented ?? '');
    let caller: string | undefined;
    // Every digest is compared (no early exit), each in constant time: the time says nothing about which one matched.
    for (const candidate of expected) {
      if (timingSafeEqual(candidate.digest, sent) && presented !== undefined) caller = candidate.name;
    }
    return caller;
  };
  return {
    source,
    ...(file !== undefined ? { file } : {}),
    callers: expected.map(({ name }) => name),
    callerOf,
    matches: (header) => callerOf(header) !== undefined,
    derivedKey: (label) => derivedKeyOf(label, secrets),
    dispose: () => remove?.(),
  };
}

function derivedKeyOf(label: string, secrets: readonly NamedSecret[]): Buffer {
  const lines = secrets.map(({ name, secret }) => `${name}:${secret}`).sort();
  return createHash('sha256').update([label, ...lines].join('\n'), 'utf8').digest();
}

/** The request's `Authorization` header (the first, if repeated). */
export function authorizationOf(req: IncomingMessage): string | undefined {
  const value = req.headers.authorization;
  return Array.isArray(value) ? value[0] : value;
}
