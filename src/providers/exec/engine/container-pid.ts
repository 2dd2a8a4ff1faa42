import { readFileSync, readdirSync } from 'node:fs';
import { hasProcFs } from '../process/process-tree.js';
import { EXEC_TAG_VAR } from './container-engine.js';

/**
 * The pid this machine's /proc gives a process of a container, known by its
 * pid inside the container (the last `NSpid` field) and the exec tag in its
 * environment (pids of other containers may be the same); undefined when no
 * process matches: the engine runs elsewhere, or this process sees another
 * pid namespace. One scan of /proc, at a held shell's start.
 */
export function hostPidOf(containerPid: number, tag: string): number | undefined {
  if (!hasProcFs) return undefined;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const wanted = `\0${EXEC_TAG_VAR}=${tag}\0`;
  for (const name of names) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    try {
      const nspid = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${name}/status`, 'latin1'))?.[1]?.trim().split(/\s+/);
      if (nspid === undefined || nspid.length < 2 || Number(nspid[nspid.length - 1]) !== containerPid) continue;
      if (`\0${readFileSync(`/proc/${name}/environ`, 'latin1')}`.includes(wanted)) return Number(name);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return undefined;
}
