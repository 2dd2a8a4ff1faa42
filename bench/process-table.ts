import { readdirSync, readFileSync } from 'node:fs';

/** Pids of every descendant of `root` (Linux /proc). */
export function descendants(root: number = process.pid): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  const out: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Descendants except the process-wide reaper watchdog, which lives as long as this process by design. */
export function leftovers(root: number = process.pid): number[] {
  return descendants(root).filter((pid) => {
    try {
      return !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dsh-reaper-watchdog');
    } catch {
      return false;
    }
  });
}

/** Proportional set size of a process in MB (shared pages split among sharers). */
export function pssMb(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}
