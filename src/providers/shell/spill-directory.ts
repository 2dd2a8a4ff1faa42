import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** An open spill file: the complete copy of one output stream. */
export interface SpillFile {
  readonly path: string;
  readonly fd: number;
}

/**
 * The private directory (mode 0700, made by mkdtemp under the OS temp dir)
 * that holds one executor's spill files, each mode 0600. Created lazily on the
 * first spill so commands with small output never touch the disk; removed
 * with everything in it by `remove()`.
 */
export class SpillDirectory {
  private dir: string | undefined;
  private sequence = 0;
  private removed = false;
  /** Finished spills, oldest first, and their total size. */
  private readonly finished: Array<{ path: string; bytes: number }> = [];
  private finishedBytes = 0;

  constructor(
    private readonly prefix = 'dsh-shell-',
    private readonly maxRetainedBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** The directory, if it was created. */
  get path(): string | undefined {
    return this.dir;
  }

  /** Creates a new spill file named after `label`; throws when the disk refuses. */
  create(label: string): SpillFile {
    if (this.removed) throw new Error('spill directory was removed');
    if (this.dir === undefined) {
      // mkdtemp creates the directory with mode 0700: other users cannot list or read spills.
      this.dir = fs.mkdtempSync(path.join(os.tmpdir(), this.prefix));
    }
    const file = path.join(this.dir, `${++this.sequence}-${label}.log`);
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
    this.finished.push({ path: file, bytes });
    this.finishedBytes += bytes;
    while (this.finishedBytes > this.maxRetainedBytes && this.finished.length > 1) {
      const oldest = this.finished.shift()!;
      this.finishedBytes -= oldest.bytes;
      try {
        fs.rmSync(oldest.path, { force: true });
      } catch {
        // Runs from a stream's close handler: a spill that cannot be removed must not crash the host.
      }
    }
  }

  /** Deletes the directory and every spill in it; later `create` calls throw. */
  async remove(): Promise<void> {
    this.removed = true;
    const dir = this.dir;
    this.dir = undefined;
    if (dir !== undefined) await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
