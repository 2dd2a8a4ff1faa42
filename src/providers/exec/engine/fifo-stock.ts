import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** How many FIFOs one `mkfifo` makes. */
const BATCH = 96;
/** The most FIFOs kept ready; one given back beyond that is removed. */
const MAX_READY = 2 * BATCH;

/**
 * Named pipes made ahead in a directory, handed out a few at a time (a
 * call's stdout, stderr and status). Node cannot make a FIFO itself, so one `mkfifo` makes a
 * batch and its cost is shared by the calls that use them. Each name is
 * random and used once. A FIFO a finished call gave back is used again
 * under a new name only when no process holds it open any more, so a
 * process left over from one call can never write into another's output
 * nor read another's input.
 */
export class FifoStock {
  private ready: string[] = [];
  private making?: Promise<void>;
  private closed = false;

  constructor(private readonly dir: string) {}

  /** `count` fresh FIFO paths (made now if too few are left). Rejects when `mkfifo` fails. */
  async take(count: number): Promise<string[]> {
    while (this.ready.length < count) await this.refill();
    const taken = this.ready.splice(this.ready.length - count, count);
    // Refill ahead, so the next calls do not wait for the spawn.
    if (this.ready.length < BATCH / 3) void this.refill().catch(() => undefined);
    return taken;
  }

  /**
   * FIFOs a finished call used, once this process closed its own ends:
   * each is renamed (nobody can open it by its old name) and kept if no
   * process holds it open, else removed. Reusing it spares the file system
   * an inode freed and another allocated per FIFO, which ext4 without a
   * journal makes costlier with every inode deleted in the last minutes
   * (docs/performance.md).
   */
  giveBack(paths: readonly string[]): void {
    for (const used of paths) {
      const fresh = path.join(this.dir, `${randomBytes(16).toString('hex')}.p`);
      try {
        fs.renameSync(used, fresh);
      } catch {
        // The directory is gone with its session.
        continue;
      }
      if (!this.closed && this.ready.length < MAX_READY && unheld(fresh)) this.ready.push(fresh);
      else fs.rmSync(fresh, { force: true });
    }
  }

  /** Takes nothing back from now on (the directory is about to go). */
  close(): void {
    this.closed = true;
  }

  /** Resolves once no batch is being made (the directory then changes no more by this stock). */
  async settled(): Promise<void> {
    await this.making?.catch(() => undefined);
  }

  private refill(): Promise<void> {
    this.making ??= this.make().finally(() => (this.making = undefined));
    return this.making;
  }

  private make(): Promise<void> {
    const names = Array.from({ length: BATCH }, () => path.join(this.dir, `${randomBytes(16).toString('hex')}.p`));
    return new Promise((resolve, reject) => {
      const child = spawn('mkfifo', ['-m', '600', '--', ...names], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => {
        if (code !== 0) return reject(new Error(`mkfifo failed: ${stderr.trim() || `exit ${code}`}`));
        this.ready.push(...names);
        resolve();
      });
    });
  }
}

/**
 * Whether no process holds the FIFO open: opening it to write without
 * waiting fails with ENXIO only when nobody reads it, and a read returns end
 * of file at once only when nobody writes it (and nothing was left in it).
 */
export function unheld(file: string): boolean {
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENXIO') return false;
  }
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    return fs.readSync(fd, Buffer.alloc(1)) === 0;
  } catch {
    // EAGAIN: a writer holds it.
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
