// One process's /proc/<pid>/stat, read by the process kernel (leftover reaping) and the PTY shell's tree walk.
import { readFileSync } from 'node:fs';

export interface ProcStat {
  readonly pid: number;
  /** Single-letter state: R running, S sleeping, D disk, Z zombie, T stopped, … */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly sid: number;
  /** Foreground process group of the controlling terminal. */
  readonly tpgid: number;
  /** Kernel flags (`PF_*`), e.g. `PF_KTHREAD` for a kernel thread. */
  readonly flags: number;
}

export const hasProcFs = ((): boolean => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/** Parses /proc/<pid>/stat; undefined when the process is gone. */
export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name may contain spaces and parentheses: fields follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    sid: Number(fields[3]),
    tpgid: Number(fields[5]),
    flags: Number(fields[6]),
  };
}
