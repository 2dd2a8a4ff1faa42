import fs from 'node:fs';
import { LocalShellExecutor } from '../../../src/providers/shell/local-shell-executor.js';
import type { ExecRequest, ExecutorConfig, RunOptions, RunResult } from '../../../src/providers/shell/shell-executor.js';

let counter = 0;

/**
 * A `sleep` duration unique to this test run (`1000.<digits>`), so the
 * process table can be searched for exactly the sleeps a test started.
 */
export function uniqueSleep(): string {
  counter += 1;
  return `1000.${process.pid}${String(counter).padStart(3, '0')}${Math.floor(Math.random() * 1000)}`;
}

/** Live (non-zombie) processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes(marker)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Polls until `check` holds, or gives up after `timeoutMs`; returns whether it held. */
export async function pollUntil(check: () => boolean, timeoutMs = 10_000, stepMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** Waits (bounded) until no live process carries `marker`; returns the survivors. */
export async function survivors(marker: string, timeoutMs = 10_000): Promise<number[]> {
  await pollUntil(() => processesWith(marker).length === 0, timeoutMs);
  const left = processesWith(marker);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  return left;
}

/** Executors made by a test file, disposed after each test. */
export class ExecutorPool {
  private readonly made: LocalShellExecutor[] = [];

  make(config: Partial<ExecutorConfig> = {}): LocalShellExecutor {
    const executor = new LocalShellExecutor(config);
    this.made.push(executor);
    return executor;
  }

  async disposeAll(): Promise<void> {
    const all = this.made.splice(0);
    await Promise.all(all.map((executor) => executor.dispose()));
  }
}

/** resolve + run in one step. */
export function runCommand(
  executor: LocalShellExecutor,
  request: ExecRequest | string,
  options?: RunOptions,
): Promise<RunResult> {
  const spec = executor.resolve(typeof request === 'string' ? { command: request } : request);
  return executor.run(spec, options);
}
