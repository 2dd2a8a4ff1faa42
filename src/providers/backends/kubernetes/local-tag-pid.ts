import { readdirSync, readFileSync } from 'node:fs';
import { EXEC_TAG_VAR } from '../../exec/engine/container-engine.js';

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
}

function carriesTag(pid: string, entry: string): boolean {
  return readText(`/proc/${pid}/environ`)?.split('\0').includes(entry) ?? false;
}

/**
 * The pid, in this machine's /proc, of the oldest process carrying the exec's
 * tag whose parent does not: the exec's own process. Found only when the pod
 * runs on this machine (a one-node cluster here); undefined otherwise.
 */
function findTaggedRoot(tag: string): number | undefined {
  const entry = `${EXEC_TAG_VAR}=${tag}`;
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const tagged = names.filter((pid) => carriesTag(pid, entry)).map(Number).sort((a, b) => a - b);
  for (const pid of tagged) {
    const stat = readText(`/proc/${pid}/stat`);
    const ppid = stat === undefined ? undefined : stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    if (ppid !== undefined && !tagged.includes(Number(ppid))) return pid;
  }
  return undefined;
}

/** `findTaggedRoot`, retried while the exec's process is still starting (up to `waitMs`). */
export async function waitForTaggedRoot(tag: string, waitMs: number): Promise<number | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const pid = findTaggedRoot(tag);
    if (pid !== undefined || Date.now() >= deadline) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
