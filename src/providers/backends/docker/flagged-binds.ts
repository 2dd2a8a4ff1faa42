import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ContainerMount } from '../../exec/engine/container-engine.js';
import { flaggedByVolume } from './docker-mounts.js';

const run = promisify(execFile);

/** Where staging points live: root-only, one directory per point, named after the server's pid (for the sweep). */
const DEFAULT_ROOT = '/run/dsh-tools/staging';

/** Engine errors that mean the engine does not see this server's mounts. */
const UNSEEN = /bind source path does not exist|no such file or directory/i;

/** One session's staged mounts: what to give the engine, how to check them, how to let them go. */
interface Staging {
  /** The session's mounts with every staged one's source replaced by its staging point. */
  readonly mounts: readonly ContainerMount[];
  /** Whether the started container's process `pid` sees each staged target as the original path. */
  holds(pid: number | undefined): Promise<boolean>;
  /** Whether an engine error says the engine could not see a staging point. */
  unseen(error: unknown): boolean;
  /** Unmounts the staging points: the container's copies are its own and stay. */
  release(): Promise<void>;
}

/**
 * Host paths Docker binds without `nosuid,nodev` — a writable directory or
 * any file (docs/security/container-defaults.md#mount-flags) — staged so the
 * container's mount carries them. The engine has no option for those flags on
 * a writable bind, but a bind copies the flags of its source mount: when this
 * server is root and shares the engine's mount namespace (a local socket), it
 * binds each such path at a root-only staging point, remounts that
 * `nosuid,nodev`, and hands the engine the staging point. The staging mount
 * goes again once the container started. Where the engine turns out not to
 * see the staging points, the engine recreates the container with plain
 * binds, and this says so once and stops staging.
 */
export class FlaggedBinds {
  private unavailable: string | undefined;
  private swept = false;

  constructor(
    enabled: boolean,
    private readonly root = DEFAULT_ROOT,
  ) {
    if (!enabled) this.unavailable = 'not root beside a local engine';
  }

  /** The reason staging is off, or undefined while it is on. */
  get disabledReason(): string | undefined {
    return this.unavailable;
  }

  /** Stages what needs it; undefined when nothing does or staging is off (the caller binds as before). */
  async stage(mounts: readonly ContainerMount[]): Promise<Staging | undefined> {
    if (this.unavailable !== undefined || !mounts.some(needsStaging)) return undefined;
    await this.sweepOnce();
    const points: Array<{ original: ContainerMount; point: string }> = [];
    const release = async () => {
      await Promise.all(points.splice(0).map(({ point }) => unstage(point)));
    };
    try {
      const staged: ContainerMount[] = [];
      for (const mount of mounts) {
        if (!needsStaging(mount)) {
          staged.push(mount);
          continue;
        }
        const isFile = prepareSource(mount);
        const point = this.newPoint(isFile);
        points.push({ original: mount, point });
        await run('mount', ['--bind', mount.source, point]);
        const flags = ['remount', 'bind', mount.readOnly ? 'ro' : 'rw', 'nosuid', 'nodev', ...(mount.noExec === true ? ['noexec'] : [])];
        await run('mount', ['-o', flags.join(','), point]);
        // `kind` set: the engine must not create a missing source (a staging point it cannot see).
        staged.push({ ...mount, source: point, kind: isFile ? 'file' : 'directory' });
      }
      const originals = points.map((p) => p.original);
      return {
        mounts: staged,
        holds: async (pid) => pid !== undefined && originals.every((mount) => sameFile(`/proc/${pid}/root${mount.target}`, mount.source)),
        unseen: (error) => UNSEEN.test(error instanceof Error ? error.message : String(error)),
        release,
      };
    } catch (error) {
      await release();
      this.giveUp(`staging a mount failed: ${describe(error)}`);
      return undefined;
    }
  }

  /** Stops staging for this engine, with one warning that says why and what holds instead. */
  giveUp(reason: string): void {
    if (this.unavailable !== undefined) return;
    this.unavailable = reason;
    process.emitWarning(
      `writable container mounts are not nosuid,nodev (${reason}); no-new-privileges, the seccomp profile and the device cgroup still hold (docs/security/container-defaults.md#mount-flags)`,
      { code: 'DSH_MOUNT_FLAGS' },
    );
  }

  private newPoint(isFile: boolean): string {
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    const dir = fs.mkdtempSync(path.join(this.root, `${process.pid}-`));
    const point = path.join(dir, 'm');
    if (isFile) fs.writeFileSync(point, '', { mode: 0o600 });
    else fs.mkdirSync(point, { mode: 0o700 });
    return point;
  }

  /** Staging points a dead server left (killed between stage and release): unmounted and removed. */
  private async sweepOnce(): Promise<void> {
    if (this.swept) return;
    this.swept = true;
    let entries: string[];
    try {
      entries = fs.readdirSync(this.root);
    } catch {
      return;
    }
    const dead = entries.filter((entry) => {
      const pid = Number(entry.split('-')[0]);
      return Number.isInteger(pid) && pid > 0 && !alive(pid);
    });
    await Promise.all(dead.map((entry) => unstage(path.join(this.root, entry, 'm'))));
  }
}

/** What the volume driver does not flag: writable binds and files; a missing read-only source is the engine's to refuse. */
function needsStaging(mount: ContainerMount): boolean {
  return !flaggedByVolume(mount) && (!mount.readOnly || mount.kind !== undefined || fs.existsSync(mount.source));
}

/** Creates a missing writable directory as the engine's plain bind would; true when the source is a file. */
function prepareSource(mount: ContainerMount): boolean {
  if (mount.kind !== undefined) return mount.kind === 'file';
  try {
    return !fs.statSync(mount.source).isDirectory();
  } catch {
    fs.mkdirSync(mount.source, { recursive: true, mode: 0o755 });
    return false;
  }
}

/** Unmounts a staging point and removes it and its directory; never recursive (a mounted point must not be emptied). */
async function unstage(point: string): Promise<void> {
  await run('umount', [point]).catch(() => run('umount', ['-l', point]).catch(() => undefined));
  try {
    if (fs.lstatSync(point).isDirectory()) fs.rmdirSync(point);
    else fs.unlinkSync(point);
    fs.rmdirSync(path.dirname(point));
  } catch {
    // Still mounted or already gone: the next server's sweep tries again.
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function describe(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr;
  return (stderr?.trim() || (error instanceof Error ? error.message : String(error))).split('\n')[0]!;
}
