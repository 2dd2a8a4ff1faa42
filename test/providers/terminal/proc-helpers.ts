import { readFileSync, readdirSync } from 'node:fs';

/** A `sleep` argument no other test uses, so leftovers can be found by their command line. */
export function uniqueSleepArg(): string {
  return `1000.${Math.floor(Math.random() * 1e9)}`;
}

/** Pids of live (non-zombie) processes whose command line contains `needle`. */
export function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (cmdline.includes(needle) && state !== 'Z') found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Waits (bounded) until `check` holds; returns its last value. Polls the process table, which has no events. */
export async function eventually<T>(probe: () => T, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let value = probe();
  while (!check(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = probe();
  }
  return value;
}

export function isAlivePid(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
