import { readFileSync } from 'node:fs';
import { listPids } from '../process/proc-environ.js';
import { hasProcFs, readStat } from '../process/process-tree.js';

/**
 * The pid this machine's /proc gives a process of a container, known by its
 * pid inside the container (the last `NSpid` field) and by its parent's
 * command line, which holds `parentArg` (pids of other containers may be the
 * same). Only files any user may read (`status`, `stat`, `cmdline`), so a
 * server that is not root finds it too. Undefined when no process matches:
 * the engine runs elsewhere, or this process sees another pid namespace. One
 * scan of /proc, at a held shell's start.
 */
export function hostPidOf(containerPid: number, parentArg: string): number | undefined {
  if (!hasProcFs) return undefined;
  for (const pid of listPids()) {
    try {
      const nspid = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]?.trim().split(/\s+/);
      if (nspid === undefined || nspid.length < 2 || Number(nspid[nspid.length - 1]) !== containerPid) continue;
      const parent = readStat(pid)?.ppid;
      if (parent !== undefined && readFileSync(`/proc/${parent}/cmdline`, 'latin1').includes(parentArg)) return pid;
    } catch {
      // Gone, or not ours to read.
    }
  }
  return undefined;
}
