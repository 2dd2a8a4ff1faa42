import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SharedShellFiles } from '../../../../src/providers/exec/engine/shared-shell-files.js';

describe('the shared shell files (one session directory, several replicas)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-shell-files-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the record and the driver state whole, the state naming the replica that wrote it', () => {
    const files = new SharedShellFiles(dir);
    expect(files.readRecord()).toBeUndefined();
    files.writeRecord({ tag: 'a1', key: 'k', secret: 's', pid: 7 });
    expect(new SharedShellFiles(dir).readRecord()).toEqual({ tag: 'a1', key: 'k', secret: 's', pid: 7 });
    files.writeState({ gen: 'g1', busy: true, running: 'n1' });
    expect(files.readState()).toEqual({ gen: 'g1', busy: true, running: 'n1', by: `${os.hostname()} ${process.pid}` });
    files.removeRecord();
    expect(files.readRecord()).toBeUndefined();
    expect(fs.readdirSync(path.join(dir, 'shell')).sort()).toEqual(['driver.json']);
  });

  it('lets one holder at a time take the lock: a second waits until the first releases it', async () => {
    const files = new SharedShellFiles(dir);
    const release = await files.lock();
    let second = false;
    const waiting = files.lock().then((unlock) => {
      second = true;
      return unlock;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second).toBe(false);
    release();
    (await waiting)();
    expect(second).toBe(true);
    expect(fs.existsSync(path.join(dir, 'shell', 'lock'))).toBe(false);
  });

  it('takes over a lock whose holder died, and one nobody renewed for 5 s', async () => {
    const files = new SharedShellFiles(dir);
    const lock = path.join(dir, 'shell', 'lock');
    const child = spawn(process.execPath, ['-e', '0']);
    const deadPid = await new Promise<number>((resolve) => child.once('exit', () => resolve(child.pid!)));
    fs.writeFileSync(lock, `${os.hostname()} ${deadPid} 0123456789abcdef`);
    (await files.lock())();

    // A live holder of another machine that stopped renewing (its machine went away).
    fs.writeFileSync(lock, 'another-host 1 0123456789abcdef');
    const old = new Date(Date.now() - 6_000);
    fs.utimesSync(lock, old, old);
    const release = await files.lock();
    expect(fs.readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${os.hostname()} ${process.pid} [0-9a-f]{16}$`));
    release();
  });

  it('does not release a lock another replica took over in the meantime', async () => {
    const files = new SharedShellFiles(dir);
    const lock = path.join(dir, 'shell', 'lock');
    const release = await files.lock();
    fs.writeFileSync(lock, 'another-host 1 fedcba9876543210');
    release();
    expect(fs.readFileSync(lock, 'utf8')).toBe('another-host 1 fedcba9876543210');
  });
});
