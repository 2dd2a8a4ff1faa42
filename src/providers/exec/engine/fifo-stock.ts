import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';

/** How many FIFO pairs one `mkfifo` makes. */
const BATCH = 32;

/**
 * Named pipes made ahead in a directory, handed out two at a time (a call's
 * stdout and stderr). Node cannot make a FIFO itself, so one `mkfifo` makes a
 * batch and its cost is shared by the calls that use them. Each name is
 * random and used once: a process left over from one call can never write
 * into another's output.
 */
export class FifoStock {
  private ready: string[] = [];
  private making?: Promise<void>;

  constructor(private readonly dir: string) {}

  /** Two fresh FIFO paths (made now if none are left). Rejects when `mkfifo` fails. */
  async take(): Promise<readonly [string, string]> {
    while (this.ready.length < 2) await this.refill();
    const pair = [this.ready.pop()!, this.ready.pop()!] as const;
    // Refill ahead, so the next calls do not wait for the spawn.
    if (this.ready.length < BATCH) void this.refill().catch(() => undefined);
    return pair;
  }

  private refill(): Promise<void> {
    this.making ??= this.make().finally(() => (this.making = undefined));
    return this.making;
  }

  private make(): Promise<void> {
    const names = Array.from({ length: BATCH * 2 }, () => path.join(this.dir, `${randomBytes(16).toString('hex')}.p`));
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
