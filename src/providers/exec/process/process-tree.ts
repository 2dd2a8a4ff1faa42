/**
 * Process-table helpers over Linux /proc, used to find and kill everything a
 * PTY shell started: its descendants (walked through `children`) and every
 * process still in its session (which catches orphans reparented to init).
 * Where /proc is missing (macOS), callers fall back to process groups.
 */
import { readFileSync, readdirSync } from 'node:fs';

export { hasProcFs, readStat, type ProcStat } from './proc-stat.js';
import { hasProcFs, readStat, type ProcStat } from './proc-stat.js';

/** Every process visible in /proc. */
function listProcesses(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const all: ProcStat[] = [];
  for (const name of names) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const stat = readStat(Number(name));
    if (stat) all.push(stat);
  }
  return all;
}

let snapshot: ProcStat[] | undefined;

/**
 * One process-table scan shared by every caller in the same event-loop turn:
 * closing ten shells at once scans /proc once per round, not ten times.
 */
function sharedSnapshot(): ProcStat[] {
  if (!snapshot) {
    snapshot = listProcesses();
    setImmediate(() => (snapshot = undefined));
  }
  return snapshot;
}

/** Direct children through /proc/<pid>/task/<tid>/children; undefined when the kernel lacks that file. */
function childrenOf(pid: number): number[] | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const tid of tids) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && tid === String(pid)) return undefined;
      continue;
    }
    for (const item of text.split(' ')) if (item !== '') children.push(Number(item));
  }
  return children;
}

/** `root` and its live descendants (cheap: follows `children` links only). */
export function processTree(root: number): ProcStat[] {
  const out: ProcStat[] = [];
  const queue = [root];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const stat = readStat(pid);
    if (!stat) continue;
    out.push(stat);
    const children = childrenOf(pid);
    if (children === undefined) return treeFromScan(root);
    queue.push(...children);
  }
  return out;
}

function treeFromScan(root: number, table: ProcStat[] = listProcesses()): ProcStat[] {
  const byParent = new Map<number, ProcStat[]>();
  for (const p of table) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const out = table.filter((p) => p.pid === root);
  for (let i = 0; i < out.length; i++) out.push(...(byParent.get(out[i]!.pid) ?? []));
  return out;
}

/**
 * Live (non-zombie) processes belonging to a shell: its descendants (only
 * while the shell lives: a dead shell's pid may be reused) plus every member
 * of the session it led, excluding this Node process.
 */
function shellProcesses(shellPid: number, shellAlive: boolean): ProcStat[] {
  const table = sharedSnapshot();
  const found = new Map<number, ProcStat>();
  if (shellAlive) for (const p of treeFromScan(shellPid, table)) found.set(p.pid, p);
  for (const p of table) if (p.sid === shellPid) found.set(p.pid, p);
  found.delete(process.pid);
  return [...found.values()].filter((p) => p.state !== 'Z' && p.state !== 'X');
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone, or not ours to signal.
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * SIGKILLs a shell and everything it started, then waits (bounded) until
 * none of it is alive. SIGKILL at once because an interactive bash ignores
 * SIGTERM, and nothing here needs a graceful exit. Re-scans so processes
 * forked while the first pass was running are caught too. Resolves with
 * whether the tree is gone.
 */
export async function killShellTree(shellPid: number, shellAlive: boolean, deadlineMs = 2000): Promise<boolean> {
  if (!hasProcFs) {
    killQuietly(-shellPid, 'SIGKILL');
    if (shellAlive) killQuietly(shellPid, 'SIGKILL');
    return true;
  }
  const until = Date.now() + deadlineMs;
  let pause = 1;
  for (;;) {
    const live = shellProcesses(shellPid, shellAlive);
    if (live.length === 0) return true;
    if (Date.now() > until) return false;
    for (const p of live) killQuietly(p.pid, 'SIGKILL');
    await delay(pause);
    pause = Math.min(pause * 2, 20);
  }
}
