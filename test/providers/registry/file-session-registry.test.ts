// The session records of the replicas on one host: files in a private directory, each expired one claimed exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { defaultSessionRecordDir, FileSessionRegistry, type FileSessionRegistryOptions } from '../../../src/providers/registry/file-session-registry.js';
import { sessionKey, type NewSessionRecord } from '../../../src/providers/registry/session-registry.js';
import { IDLE, itKeepsTheRegistryContract, recordOf, T0 } from '../support/session-registry-contract.js';

describe('FileSessionRegistry', () => {
  let root: string;
  let dir: string;
  let time: number;
  const clock = { now: () => time };
  const open = (options: FileSessionRegistryOptions = {}): FileSessionRegistry => new FileSessionRegistry(dir, { clock, ...options });

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'dsh-registry-'));
    dir = path.join(root, 'records');
    time = T0;
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  itKeepsTheRegistryContract(() => ({
    open: (at, beforeClaim) => new FileSessionRegistry(dir, { clock: at, ...(beforeClaim === undefined ? {} : { beforeClaim }) }),
    expectStoreHolds: async (keys) => {
      const names = existsSync(dir) ? readdirSync(dir).filter((name) => name !== 'replicas') : [];
      expect(names.sort()).toEqual(keys.map((key) => `${key}.json`).sort());
    },
    sizes: { lifetimeIdles: 10, claimers: 4, expired: 40, fresh: 5, races: 60 },
  }));

  it('names a per-user default directory in the temporary directory', () => {
    expect(defaultSessionRecordDir()).toBe(path.join(os.tmpdir(), `dsh-shared-sessions-${process.getuid!()}`));
  });

  it('keeps a record in a 0700 directory as a 0600 file of its fields only', async () => {
    const registry = open();
    const record = recordOf('one', { era: 'modern', client: { protocolVersion: '2025-06-18', clientInfo: { name: 'c' } }, maxLifetimeMs: 3_600_000 });
    await registry.register({ ...record, stray: 'not stored' } as NewSessionRecord);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, `${record.key}.json`)).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(dir, `${record.key}.json`), 'utf8')).not.toContain('stray');
    expect(await registry.find(record.key)).toEqual({ ...record, createdAt: T0, lastUseAt: T0 });
    expect(registry.describe).toBe(`dir ${dir}`);
  });

  it('makes no directory for a malformed key', async () => {
    await expect(open().find('../../etc/passwd')).rejects.toThrow(/64 lower-case hex/);
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a directory others may write in, a symbolic link, and (as root) one of another uid', async () => {
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o777);
    await expect(open().register(recordOf('one'))).rejects.toThrow(/refusing the session record directory .*group or others may write in it \(mode 777\)/);
    chmodSync(dir, 0o775);
    await expect(open().liveSessionIds()).rejects.toThrow(/group or others may write/);
    expect(readdirSync(dir)).toEqual([]);

    const real = path.join(root, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = path.join(root, 'link');
    symlinkSync(real, link);
    await expect(new FileSessionRegistry(link).find(sessionKey('x'))).rejects.toThrow(/not a directory/);

    if (process.getuid!() === 0) {
      chmodSync(dir, 0o700);
      chownSync(dir, 65534, 65534);
      await expect(open().find(sessionKey('x'))).rejects.toThrow(/belongs to uid 65534/);
    }
  });

  it('finds nothing for a corrupt record or one under a claim', async () => {
    const registry = open();
    await registry.register(recordOf('corrupt'));
    writeFileSync(path.join(dir, `${sessionKey('corrupt')}.json`), '{"key": "half');
    expect(await registry.find(sessionKey('corrupt'))).toBeUndefined();
    // A record filed under another key's name is not that key's record.
    await registry.register(recordOf('moved'));
    renameSync(path.join(dir, `${sessionKey('moved')}.json`), path.join(dir, `${sessionKey('elsewhere')}.json`));
    expect(await registry.find(sessionKey('elsewhere'))).toBeUndefined();
    await registry.register(recordOf('held'));
    renameSync(path.join(dir, `${sessionKey('held')}.json`), path.join(dir, `${sessionKey('held')}.claimed-${process.pid}-00`));
    expect(await registry.find(sessionKey('held'))).toBeUndefined();
    // Its sandbox is not an orphan while the claim may give it back.
    expect(await registry.liveSessionIds()).toEqual(new Set(['s-held']));
  });

  it('skips a touch within a second of its own last write, not one that could be near the idle limit', async () => {
    const registry = open();
    await registry.register(recordOf('often'));
    const file = path.join(dir, `${sessionKey('often')}.json`);
    time = T0 + 500;
    expect(await registry.touch(sessionKey('often'))).toBe(true);
    expect(Math.round(statSync(file).mtimeMs)).toBe(T0);
    time = T0 + 1_000;
    expect(await registry.touch(sessionKey('often'))).toBe(true);
    expect(Math.round(statSync(file).mtimeMs)).toBe(T0 + 1_000);

    await registry.register(recordOf('short', { idleMs: 2_000 }));
    time += 100;
    expect(await registry.touch(sessionKey('short'))).toBe(true);
    expect(Math.round(statSync(path.join(dir, `${sessionKey('short')}.json`)).mtimeMs)).toBe(time);
  });

  it('gives each expired record to exactly one of two claiming processes', async () => {
    const modules = transpileRegistry(root);
    const records = Array.from({ length: 150 }, (_, i) => recordOf(`proc-${i}`));
    const registry = open();
    for (const record of records) await registry.register(record);
    const children = [claimingChild(modules, dir), claimingChild(modules, dir)];
    try {
      await Promise.all(children.map((child) => child.ready));
      for (const child of children) child.process.stdin!.end('go\n');
      const claimed = await Promise.all(children.map((child) => child.claimed));
      expect(claimed.flat().sort()).toEqual(records.map((record) => record.key).sort());
      expect(readdirSync(dir)).toEqual(['replicas']);
    } finally {
      for (const child of children) child.process.kill();
    }
  });

  it('takes over the claim of a claimer that died before finishing it', async () => {
    const registry = open();
    await registry.register(recordOf('orphan'));
    time = T0 + IDLE / 2;
    await registry.register(recordOf('kept'));
    const dead = await deadPid();
    renameSync(path.join(dir, `${sessionKey('orphan')}.json`), path.join(dir, `${sessionKey('orphan')}.claimed-${dead}-ab`));
    renameSync(path.join(dir, `${sessionKey('kept')}.json`), path.join(dir, `${sessionKey('kept')}.claimed-${dead}-cd`));
    const claimed = await registry.claimExpired(T0 + IDLE);
    expect(claimed.map((record) => record.key)).toEqual([sessionKey('orphan')]);
    // Not expired by its mtime: back under its name.
    expect(readdirSync(dir).sort()).toEqual([`${sessionKey('kept')}.json`, 'replicas']);
  });

  it('tells whether another replica on this host is alive, and drops the files of dead ones', async () => {
    const registry = open();
    const replicas = path.join(dir, 'replicas');
    await registry.join();
    expect(JSON.parse(readFileSync(path.join(replicas, String(process.pid)), 'utf8'))).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    expect(await registry.othersAlive()).toBe(false);

    const dead = await deadPid();
    writeFileSync(path.join(replicas, String(dead)), JSON.stringify({ pid: dead, hostname: os.hostname(), instance: 'x' }));
    expect(await registry.othersAlive()).toBe(false);
    expect(existsSync(path.join(replicas, String(dead)))).toBe(false);

    const live = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      writeFileSync(path.join(replicas, String(live.pid)), JSON.stringify({ pid: live.pid, hostname: os.hostname(), instance: 'y' }));
      expect(await registry.othersAlive()).toBe(true);
    } finally {
      live.kill();
      await once(live, 'exit');
    }
    expect(await registry.othersAlive()).toBe(false);

    // leave() removes this replica's own file only.
    await open().leave();
    expect(existsSync(path.join(replicas, String(process.pid)))).toBe(true);
    await registry.leave();
    expect(readdirSync(replicas)).toEqual([]);
  });
});

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

/** The registry's modules as plain ES modules a child node runs (type-only imports vanish). */
function transpileRegistry(root: string): string {
  const src = path.join(process.cwd(), 'src/providers/registry');
  const out = path.join(root, 'modules');
  mkdirSync(out);
  writeFileSync(path.join(out, 'package.json'), '{"type":"module"}');
  for (const name of readdirSync(src)) {
    const js = ts.transpileModule(readFileSync(path.join(src, name), 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    writeFileSync(path.join(out, name.replace(/\.ts$/, '.js')), js);
  }
  return out;
}

/** A process that claims the expired records of `dir` once told to on stdin, and prints their keys. */
function claimingChild(modules: string, dir: string): { process: ChildProcess; ready: Promise<void>; claimed: Promise<string[]> } {
  const script = `
    import { FileSessionRegistry } from ${JSON.stringify(path.join(modules, 'file-session-registry.js'))};
    const registry = new FileSessionRegistry(${JSON.stringify(dir)});
    await registry.liveSessionIds();
    process.stdout.write('ready\\n');
    process.stdin.once('data', async () => {
      const claimed = await registry.claimExpired(${T0 + IDLE});
      process.stdout.write(JSON.stringify(claimed.map((record) => record.key)) + '\\n');
      process.exit(0);
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const lines = new Promise<string[]>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out.trim().split('\n')) : reject(new Error(`claimer exited ${code}: ${out}`))));
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => out.startsWith('ready\n') && resolve());
    child.on('exit', () => reject(new Error(`claimer exited before ready: ${out}`)));
  });
  return { process: child, ready, claimed: lines.then((all) => JSON.parse(all[1]!) as string[]) };
}
