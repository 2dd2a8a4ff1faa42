import { readdirSync, readFileSync } from 'node:fs';

/** Pids whose command line contains `needle` (Linux /proc), excluding this process. */
export function pidsMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(needle)) pids.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}

/** Waits (bounded) until no process matches; returns the survivors, if any. */
export async function waitUntilGone(needle: string, timeoutMs = 5000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pidsMatching(needle);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits (bounded) until a process matches; used to know a command really started. */
export async function waitUntilRunning(needle: string, timeoutMs = 10000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = pidsMatching(needle);
    if (found.length > 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A unique `sleep` duration so a test can find exactly its own processes. */
export function uniqueSleep(): string {
  return `1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}
