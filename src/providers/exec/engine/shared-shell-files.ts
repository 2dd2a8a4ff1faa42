import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// A shared session's held shell as the replicas see it (docs/shared-sessions.md#the-persistent-shell):
// `<session dir>/shell/record.json`, `driver.json` and the `lock` file, written by the replicas only.

/** What another replica needs to drive the shell: its terminal (by tag), the launcher's key, the markers' secret, the launcher's pid in the container. */
export interface SharedShellRecord {
  readonly tag: string;
  readonly key: string;
  readonly secret: string;
  readonly pid: number;
}

/** Who drove the shell last: a replica's drive (`gen`, fresh each time a replica takes the shell over), and whether it left a command running. */
interface DriverState {
  readonly gen: string;
  readonly busy: boolean;
  /** The frame nonce of a command the last send left waiting for input: the next driver feeds it. */
  readonly running?: string;
  /** The replica that wrote it, `<hostname> <pid>` (set by `writeState`): for people reading the directory. */
  readonly by?: string;
}

/** How often a held lock's mtime is renewed, and after how long without it the lock counts as left by a dead replica. */
const LOCK_RENEW_MS = 1_000;
const LOCK_STALE_MS = 5_000;
const LOCK_POLL_MS = 20;

export class SharedShellFiles {
  private readonly dir: string;

  constructor(sessionDir: string) {
    this.dir = path.join(sessionDir, 'shell');
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  readRecord(): SharedShellRecord | undefined {
    return this.read<SharedShellRecord>('record.json');
  }

  writeRecord(record: SharedShellRecord): void {
    this.write('record.json', record);
  }

  removeRecord(): void {
    fs.rmSync(path.join(this.dir, 'record.json'), { force: true });
  }

  readState(): DriverState | undefined {
    return this.read<DriverState>('driver.json');
  }

  writeState(state: DriverState): void {
    this.write('driver.json', { ...state, by: `${os.hostname()} ${process.pid}` });
  }

  /**
   * Takes the lock one replica holds while it drives the shell (`lock`,
   * created exclusively), waiting while a live replica holds it; a lock whose
   * holder is a dead process of this machine, or that went unrenewed for
   * `LOCK_STALE_MS`, is taken over. Resolves with its release.
   */
  async lock(): Promise<() => void> {
    const file = path.join(this.dir, 'lock');
    const mine = `${os.hostname()} ${process.pid} ${randomBytes(8).toString('hex')}`;
    for (;;) {
      try {
        fs.writeFileSync(file, mine, { flag: 'wx', mode: 0o600 });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (this.stale(file)) {
        // Renamed away by exactly one taker; the others find the name free or taken again.
        const aside = `${file}.stale-${randomBytes(4).toString('hex')}`;
        try {
          fs.renameSync(file, aside);
          fs.rmSync(aside, { force: true });
        } catch {
          // Another replica took it first.
        }
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
    const renew = setInterval(() => {
      try {
        const now = new Date();
        fs.utimesSync(file, now, now);
      } catch {
        // Gone: released, or taken over.
      }
    }, LOCK_RENEW_MS);
    renew.unref();
    return () => {
      clearInterval(renew);
      try {
        if (fs.readFileSync(file, 'utf8') === mine) fs.rmSync(file, { force: true });
      } catch {
        // Already gone.
      }
    };
  }

  private stale(file: string): boolean {
    try {
      const [host, pid] = fs.readFileSync(file, 'utf8').split(' ');
      if (host === os.hostname() && !isAlive(Number(pid))) return true;
      return Date.now() - fs.statSync(file).mtimeMs > LOCK_STALE_MS;
    } catch {
      return false;
    }
  }

  private read<T>(name: string): T | undefined {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  /** Whole or not at all: a temporary file renamed over the name. */
  private write(name: string, value: unknown): void {
    const temporary = path.join(this.dir, `.${name}.${randomBytes(4).toString('hex')}`);
    fs.writeFileSync(temporary, JSON.stringify(value), { mode: 0o600 });
    fs.renameSync(temporary, path.join(this.dir, name));
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
