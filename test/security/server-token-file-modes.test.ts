// Token files as Docker and Kubernetes mount them: which modes and owners the
// server accepts, warns about or refuses. The server-as-another-user cases run
// the built token reader as uid/gid 65534 (needs root for setpriv).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveHttpToken } from '../../src/mcp/access/http-auth.js';
import { ensureBuilt, ROOT } from '../support/built-server.js';

const canSwitchUser = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
const itAsNobody = canSwitchUser ? it : it.skip;
const NOBODY = 65534;
const TOKEN = 'mounted-token-0123456789abcdef';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-token-modes-'));
  chmodSync(dir, 0o755);
  if (canSwitchUser) ensureBuilt();
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
/** A token file with `mode`, owned by `uid:gid` (default root). */
function tokenFile(content: string, mode: number, uid = 0, gid = 0): string {
  const file = path.join(dir, `token-${++counter}`);
  writeFileSync(file, content);
  chownSync(file, uid, gid);
  chmodSync(file, mode);
  return file;
}

/** What the built token reader says when the server runs as uid/gid 65534. */
function readAsNobody(file: string): { callers?: string[]; warning?: string; notes?: string[]; error?: string } {
  const script = `
    import(${JSON.stringify(path.join(ROOT, 'dist/mcp/access/http-auth.js'))}).then(({ resolveHttpToken }) => {
      try {
        const t = resolveHttpToken({ tokenFile: process.argv[1], env: {} });
        console.log(JSON.stringify({ callers: t.callers, warning: t.warning, notes: t.notes }));
      } catch (e) { console.log(JSON.stringify({ error: e.message })); }
    });`;
  const out = execFileSync('setpriv', ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', process.execPath, '-e', script, file], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as ReturnType<typeof readAsNobody>;
}

describe('accepted', () => {
  it('0600 owned by the server user: no warning, no note', () => {
    const token = resolveHttpToken({ tokenFile: tokenFile(`${TOKEN}\n`, 0o600) });
    expect([token.callers, token.warning, token.notes]).toEqual([['default'], undefined, undefined]);
  });

  it('0644 (the Docker and Kubernetes default): accepted with an info note, no warning', () => {
    const file = tokenFile(TOKEN, 0o644);
    const token = resolveHttpToken({ tokenFile: file });
    expect(token.warning).toBeUndefined();
    expect(token.notes).toEqual([`--token-file ${file} is readable by every local user (mode 0644): fine in a container, chmod 600 it on a shared machine`]);
    expect(token.matches(`Bearer ${TOKEN}`)).toBe(true);
  });

  itAsNobody('0440 owned by root, group of the server user (Kubernetes fsGroup), read by a non-root server', () => {
    expect(readAsNobody(tokenFile(TOKEN, 0o440, 0, NOBODY))).toEqual({ callers: ['default'] });
  });

  itAsNobody('0444 owned by root (a Docker secret under /run/secrets), read by a non-root server: a note only', () => {
    const answer = readAsNobody(tokenFile(TOKEN, 0o444));
    expect(answer.callers).toEqual(['default']);
    expect(answer.warning).toBeUndefined();
    expect(answer.notes).toHaveLength(1);
  });

  itAsNobody('a Kubernetes Secret volume: 1777 directory, ..data symlink to a timestamped directory, one file per caller', () => {
    const volume = path.join(dir, 'secret-volume');
    const stamped = path.join(volume, '..2026_12_01_18_00_00.123456789');
    mkdirSync(stamped, { recursive: true });
    chmodSync(volume, 0o1777);
    chmodSync(stamped, 0o755);
    for (const [name, secret] of [['alice', 'alice-token-0123456789abcdef'], ['bob', 'bob-token-0123456789abcdef00']] as const) {
      const file = path.join(stamped, name);
      writeFileSync(file, `${secret}\n`);
      chownSync(file, 0, NOBODY);
      chmodSync(file, 0o440);
      symlinkSync(`..data/${name}`, path.join(volume, name));
    }
    symlinkSync(path.basename(stamped), path.join(volume, '..data'));
    expect(readAsNobody(volume)).toEqual({ callers: ['alice', 'bob'] });
    const token = resolveHttpToken({ tokenFile: volume });
    expect(token.callerOf('Bearer bob-token-0123456789abcdef00')).toBe('bob');
  });
});

describe('warned about', () => {
  it('group-writable (0660)', () => {
    const file = tokenFile(TOKEN, 0o660);
    expect(resolveHttpToken({ tokenFile: file }).warning).toBe(`--token-file ${file} is group-writable (mode 0660): chmod g-w it`);
  });

  it('owned by another non-root user, who could change it', () => {
    const file = tokenFile(TOKEN, 0o600, 1234, 1234);
    const warning = resolveHttpToken({ tokenFile: file }).warning;
    expect(warning).toBe(
      `--token-file ${file} is owned by uid 1234, neither root nor this server's user: that user can change the token`,
    );
  });
});

describe('refused', () => {
  it.each([['0666', 0o666], ['0646', 0o646], ['0602', 0o602]])('a world-writable file (mode %s)', (_name, mode) => {
    const file = tokenFile(TOKEN, mode);
    expect(() => resolveHttpToken({ tokenFile: file })).toThrow(
      `--token-file ${file} is writable by every user (mode 0${mode.toString(8)}): anyone could replace the token; chmod o-w it`,
    );
  });

  it('a file in a world-writable directory without the sticky bit', () => {
    const open = path.join(dir, 'open-dir');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const file = path.join(open, 'token');
    writeFileSync(file, TOKEN, { mode: 0o600 });
    expect(() => resolveHttpToken({ tokenFile: file })).toThrow(`the directory ${open} is writable by every user without the sticky bit (mode 0777)`);
  });

  itAsNobody('a root-owned 0600 file the non-root server cannot read: the error says why and what to mount instead', () => {
    const file = tokenFile(TOKEN, 0o600);
    expect(readAsNobody(file).error).toBe(
      `cannot read --token-file ${file} (EACCES): it is owned by uid 0 gid 0 with mode 0600 and this server runs as uid ${NOBODY}; ` +
        'make it readable by a group the server is in (Kubernetes: fsGroup with defaultMode 0440) or mount it 0444',
    );
  });

  it('an empty directory and a file with an unusable caller name', () => {
    const empty = path.join(dir, 'empty');
    mkdirSync(empty);
    expect(() => resolveHttpToken({ tokenFile: empty })).toThrow(`--token-file ${empty} is a directory without token files`);
    const named = path.join(dir, 'named');
    mkdirSync(named);
    writeFileSync(path.join(named, 'has space'), TOKEN, { mode: 0o600 });
    expect(() => resolveHttpToken({ tokenFile: named })).toThrow('"has space" is not a caller name');
  });
});
