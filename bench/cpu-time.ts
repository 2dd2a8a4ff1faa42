import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (`getconf CLK_TCK`; 100 on every Linux we run on). */
const CLOCK_TICKS = 100;

/** CPU milliseconds (user + system) spent so far: this process, and its children it has waited for. */
export interface CpuTime {
  readonly self: number;
  readonly children: number;
}

/**
 * Children's CPU comes from /proc/self/stat (`cutime` + `cstime`, 10 ms
 * ticks): it counts a child once it was waited for, so a window must end
 * after its children did. Zero where /proc is missing.
 */
export function cpuTime(): CpuTime {
  const usage = process.cpuUsage();
  return { self: (usage.user + usage.system) / 1000, children: childrenCpuMs() };
}

function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** What one window of work cost: wall time, this process's CPU, its children's CPU. */
export interface Cost {
  readonly wall: number;
  readonly self: number;
  readonly children: number;
}

export function costBetween(start: { at: number; cpu: CpuTime }, end: { at: number; cpu: CpuTime }, wall: number): Cost {
  return { wall, self: end.cpu.self - start.cpu.self, children: end.cpu.children - start.cpu.children };
}

/** The machine's load average (1, 5, 15 minutes), as /proc/loadavg prints it. */
export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'latin1').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}
