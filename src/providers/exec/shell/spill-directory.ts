import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** An open spill file: the complete copy of one output stream. */
export interface SpillFile {
  readonly path: string;
  readonly fd: number;
}

/** What every view of one spill directory shares. */
interface SpillStore {
  dir: string | undefined;
  sequence: number;
  removed: boolean;
  /** Finished spills, oldest first, and their total size. */
  readonly finished: Array<{ path: string; bytes: number }>;
  finishedBytes: number;
}

/**
 * The private directory (mode 0700, made by mkdtemp under the OS temp dir)
 * that holds one executor's spill files, each mode 0600. Created lazily on the
 * first spill so commands with small output never touch the disk; removed
 * with everything in it by `remove()`. A `group` view puts its files in a
 * subdirectory of its own (one per session), so a confined command can be
 * shown its session's spills and no other's; retention stays shared.
 */
export class SpillDirectory {
  private readonly store: SpillStore;

  constructor(
    private readonly prefix = 'dsh-shell-',
    private readonly maxRetainedBytes = Number.POSITIVE_INFINITY,
    private readonly subdirectory?: string,
    store?: SpillStore,
  ) {
    this.store = store ?? { dir: undefined, sequence: 0, removed: false, finished: [], finishedBytes: 0 };
  }

  /** The directory, if it was created (the shared root for a group view too). */
  get path(): string | undefined {
    return this.store.dir;
  }

  /** A view whose files go to `<root>/<hash of key>/` (mode 0700). */
  group(key: string): SpillDirectory {
    const name = `s-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
    return new SpillDirectory(this.prefix, this.maxRetainedBytes, name, this.store);
  }

  /** Where this view's files go (they may not exist yet); undefined until the shared root was created. */
  get viewPath(): string | undefined {
    const root = this.store.dir;
    return root === undefined || this.subdirectory === undefined ? root : path.join(root, this.subdirectory);
  }

  /** Creates (if needed) and returns the directory this view's files go to. */
  private ensureDirectory(): string {
    const store = this.store;
    if (store.removed) throw new Error('spill directory was removed');
    // mkdtemp creates the directory with mode 0700: other users cannot list or read spills.
    store.dir ??= fs.mkdtempSync(path.join(os.tmpdir(), this.prefix));
    if (this.subdirectory === undefined) return store.dir;
    const dir = path.join(store.dir, this.subdirectory);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** Creates a new spill file named after `label`; throws when the disk refuses. */
  create(label: string): SpillFile {
    const file = path.join(this.ensureDirectory(), `${++this.store.sequence}-${label}.log`);
    // 'wx': never follow or reuse an existing path; 0600 before any byte is written.
    const fd = fs.openSync(file, 'wx', 0o600);
    return { path: file, fd };
  }

  /**
   * Records a spill that is complete. A long-lived executor would otherwise
   * fill the disk: past `maxRetainedBytes` the oldest finished spills are
   * deleted (their paths, already shown, then read as missing). The newest
   * always stays, so the result that names it can be followed up.
   */
  retire(file: string, bytes: number): void {
    const store = this.store;
    store.finished.push({ path: file, bytes });
    store.finishedBytes += bytes;
    while (store.finishedBytes > this.maxRetainedBytes && store.finished.length > 1) {
      const oldest = store.finished.shift()!;
      store.finishedBytes -= oldest.bytes;
      try {
        fs.rmSync(oldest.path, { force: true });
      } catch {
        // Runs from a stream's close handler: a spill that cannot be removed must not crash the host.
      }
    }
  }

  /** Deletes the directory and every spill in it; later `create` calls throw. */
  async remove(): Promise<void> {
    this.store.removed = true;
    const dir = this.store.dir;
    this.store.dir = undefined;
    if (dir !== undefined) await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
