// Issue 34 item 3: writable host paths reach a session container nosuid,nodev through a staging point
// this server mounts, and a staging point never outlives the container's start (nor a dead server).
import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FlaggedBinds } from '../../../../src/providers/backends/docker/flagged-binds.js';

const ROOT = process.getuid?.() === 0;
const describeAsRoot = ROOT ? describe : describe.skip;

/** The options /proc/self/mountinfo shows for the mount at `target`, or undefined. */
function mountOptions(target: string): string[] | undefined {
  const line = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((l) => l.split(' ')[4] === target);
  return line?.split(' ')[5]?.split(',');
}

describeAsRoot(`FlaggedBinds${ROOT ? '' : ' (skipped: mounting needs root)'}`, () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-flagged-')));
    root = path.join(dir, 'staging');
    mkdirSync(path.join(dir, 'ws'));
    writeFileSync(path.join(dir, 'ws', 'kept'), 'kept\n');
    writeFileSync(path.join(dir, 'file'), 'file\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stages a writable directory and a file nosuid,nodev, checks them, and leaves nothing after release', async () => {
    const binds = new FlaggedBinds(true, root);
    const ws = path.join(dir, 'ws');
    const file = path.join(dir, 'file');
    const staging = await binds.stage([
      { source: ws, target: ws, readOnly: false },
      { source: file, target: '/elsewhere/file', readOnly: true, kind: 'file' },
      { source: ws, target: '/ro', readOnly: true },
    ]);
    expect(staging).toBeDefined();
    const [wsPoint, filePoint, untouched] = staging!.mounts;
    expect(wsPoint!.source).not.toBe(ws);
    expect(wsPoint!.kind).toBe('directory');
    expect(mountOptions(wsPoint!.source)).toEqual(expect.arrayContaining(['rw', 'nosuid', 'nodev']));
    expect(mountOptions(filePoint!.source)).toEqual(expect.arrayContaining(['ro', 'nosuid', 'nodev']));
    expect(readFileSync(path.join(wsPoint!.source, 'kept'), 'utf8')).toBe('kept\n');
    // A read-only directory is the volume driver's: passed through as it was.
    expect(untouched).toEqual({ source: ws, target: '/ro', readOnly: true });
    // This process sees the workspace's target as the workspace; nobody sees /elsewhere/file.
    expect(await staging!.holds(undefined)).toBe(false);
    expect(await staging!.holds(process.pid)).toBe(false);
    await staging!.release();
    expect(mountOptions(wsPoint!.source)).toBeUndefined();
    expect(existsSync(path.dirname(wsPoint!.source))).toBe(false);
    expect(existsSync(path.dirname(filePoint!.source))).toBe(false);
    expect(readFileSync(path.join(ws, 'kept'), 'utf8')).toBe('kept\n');
    expect(readFileSync(file, 'utf8')).toBe('file\n');
  });

  it('holds: a target seen as the original path passes', async () => {
    const ws = path.join(dir, 'ws');
    const staging = await new FlaggedBinds(true, root).stage([{ source: ws, target: ws, readOnly: false }]);
    try {
      expect(await staging!.holds(process.pid)).toBe(true);
    } finally {
      await staging!.release();
    }
  });

  it('stages nothing when nothing needs it or when it is off', async () => {
    const ws = path.join(dir, 'ws');
    expect(await new FlaggedBinds(true, root).stage([{ source: ws, target: '/ro', readOnly: true }])).toBeUndefined();
    const off = new FlaggedBinds(false, root);
    expect(off.disabledReason).toMatch(/not root/);
    expect(await off.stage([{ source: ws, target: ws, readOnly: false }])).toBeUndefined();
  });

  it('a staging failure turns staging off with one warning naming the flags and what still holds', async () => {
    const emitted = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      // A file where the staging root should be: no point can be made.
      const binds = new FlaggedBinds(true, path.join(dir, 'file', 'staging'));
      const ws = path.join(dir, 'ws');
      expect(await binds.stage([{ source: ws, target: ws, readOnly: false }])).toBeUndefined();
      expect(await binds.stage([{ source: ws, target: ws, readOnly: false }])).toBeUndefined();
      binds.giveUp('again');
      expect(emitted).toHaveBeenCalledTimes(1);
      expect(emitted.mock.calls[0]![0]).toMatch(/^writable container mounts are not nosuid,nodev \(staging a mount failed: .*\); no-new-privileges, the seccomp profile and the device cgroup still hold/);
      expect(emitted.mock.calls[0]![1]).toEqual({ code: 'DSH_MOUNT_FLAGS' });
      expect(binds.disabledReason).toMatch(/^staging a mount failed/);
    } finally {
      emitted.mockRestore();
    }
  });

  it('recognises the engine errors that mean it cannot see a staging point', async () => {
    const ws = path.join(dir, 'ws');
    const staging = await new FlaggedBinds(true, root).stage([{ source: ws, target: ws, readOnly: false }]);
    try {
      expect(staging!.unseen(new Error('invalid mount config for type "bind": bind source path does not exist: /run/x'))).toBe(true);
      expect(staging!.unseen(new Error('No such image: x'))).toBe(false);
    } finally {
      await staging!.release();
    }
  });

  it('a point a dead server left mounted is unmounted and removed by the next server, its source intact', async () => {
    const ws = path.join(dir, 'ws');
    // No pid is this large on Linux (pid_max ≤ 2^22): its server is dead.
    const left = path.join(root, '99999999-left', 'm');
    mkdirSync(left, { recursive: true });
    execFileSync('mount', ['--bind', ws, left]);
    const staging = await new FlaggedBinds(true, root).stage([{ source: ws, target: ws, readOnly: false }]);
    await staging!.release();
    expect(mountOptions(left)).toBeUndefined();
    expect(existsSync(path.dirname(left))).toBe(false);
    expect(readFileSync(path.join(ws, 'kept'), 'utf8')).toBe('kept\n');
  });
});
