// The process table (Linux /proc) as the witness of what tests started and
// left behind. One implementation for every suite; the OS sends no events
// for "process gone", so waits here poll, bounded.
import { readdirSync, readFileSync } from 'node:fs';

let counter = 0;

/** A `sleep` duration unique to this run (`1000.<digits>`), so a test finds exactly its own processes. */
export function uniqueSleep(): string {
  counter += 1;
  const random = String(Math.floor(Math.random() * 1e6)).padStart(6, '0');
  return `1000.${process.pid}${String(counter).padStart(3, '0')}${random}`;
}

function stateOf(pid: number | string): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/** True while `pid` exists and is not a zombie. */
export function isAlivePid(pid: number): boolean {
  const state = stateOf(pid);
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/**
 * Pids of live (non-zombie) processes, other than this one, whose command
 * line contains `needle` as a whole word: `1000.123` must not match another
 * suite's `1000.1234`, or one test would wait on (or kill) another's process.
 */
export function processesWith(needle: string): number[] {
  const word = new RegExp(`(?<!\\w)${needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.])`);
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'latin1').replace(/\0/g, ' ');
      if (word.test(cmdline) && isAlivePid(Number(entry))) found.push(Number(entry));
    } catch {
      // Gone while we looked.
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

/** Like `pollUntil`, but fails naming `what` when the wait runs out (generous: the machine is shared). */
export async function waitUntil(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  if (!(await pollUntil(check, timeoutMs))) throw new Error(`timed out waiting until ${what}`);
}

/** Waits (bounded) until no process matches; returns the survivors, if any. */
export async function waitUntilGone(needle: string, timeoutMs = 5000): Promise<number[]> {
  await pollUntil(() => processesWith(needle).length === 0, timeoutMs);
  return processesWith(needle);
}

/**
 * The processes that have become `sleep <needle>`. `processesWith` also
 * matches a forked bash that has not yet exec'd its child (its command line
 * names the needle too): a test that counts escapees must wait for these.
 */
export function sleepsRunning(needle: string): number[] {
  return processesWith(needle).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith(`sleep\0${needle}`);
    } catch {
      return false;
    }
  });
}

/** Waits (bounded) until a process matches; used to know a command really started. */
export async function waitUntilRunning(needle: string, timeoutMs = 10_000): Promise<number[]> {
  await pollUntil(() => processesWith(needle).length > 0, timeoutMs);
  return processesWith(needle);
}

/** Like `waitUntilGone`, then kills whatever is left so one failing test does not leak into the next. */
export async function survivors(needle: string, timeoutMs = 10_000): Promise<number[]> {
  const left = await waitUntilGone(needle, timeoutMs);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  return left;
}
