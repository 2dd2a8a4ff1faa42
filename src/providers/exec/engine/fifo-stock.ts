import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';

/** How many FIFOs one `mkfifo` makes. */
const BATCH = 96;

/**
 * Named pipes made ahead in a directory, handed out a few at a time (a
 * call's stdout, stderr and status). Node cannot make a FIFO itself, so one `mkfifo` makes a
 * batch and its cost is shared by the calls that use them. Each name is
 * random and used once: a process left over from one call can never write
 * into another's output.
 */
export class FifoStock {
  private ready: string[] = [];
  private making?: Promise<void>;

  constructor(private readonly dir: string) {}

  /** `count` fresh FIFO paths (made now if too few are left). Rejects when `mkfifo` fails. */
  async take(count: number): Promise<string[]> {
    while (this.ready.length < count) await this.refill();
    const taken = this.ready.splice(this.ready.length - count, count);
    // Refill ahead, so the next calls do not wait for the spawn.
    if (this.ready.length < BATCH / 3) void this.refill().catch(() => undefined);
    return taken;
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
