import { readFileSync, readlinkSync } from 'node:fs';
import { hasEntry, readEnviron } from './proc-environ.js';
import { readStat } from './proc-stat.js';
import { PROCESS_TAG_VARIABLE } from './process-tag.js';

const TAG_ENTRY = Buffer.from(`${PROCESS_TAG_VARIABLE}=`);
/** Far deeper than any real process tree; a bound in case /proc lies. */
const MAX_DEPTH = 256;

/**
 * Why process `pid` counts as one of the commands a dsh-tools server runs
 * (so it must never be an MCP client of this server), or undefined. Its
 * ancestry is walked up to where it meets the server's own (what both run
 * under is no command of anyone's, as far as this server can be harmed):
 *
 * - it descends from this server (every command does, confined ones too:
 *   bwrap runs in its own PID namespace and dies with its parent, so a
 *   daemonised process is reparented inside the sandbox, never out of it);
 * - it, or an ancestor below the meeting point, was started with
 *   `DSH_PROCESS_TAG` (a command of any dsh-tools server on this host, e.g.
 *   a stdio server beside this one; a command that clears its environment
 *   still has a tagged ancestor);
 * - it is confined the way a sandbox confines (no_new_privs, a seccomp
 *   filter, and a PID namespace other than this server's): what every bwrap
 *   sandbox of any server looks like, and no process can undo.
 *
 * The server's own process is not a command (an embedder's in-process
 * client). Reads /proc only; a process that is gone or not readable answers
 * nothing for that step. See docs/security.md, "Who may answer an approval".
 */
export function commandPeerReason(pid: number, self: number = process.pid): string | undefined {
  if (pid === self) return undefined;
  const shared = ancestorsOf(self);
  let at = pid;
  for (let depth = 0; at > 1 && depth < MAX_DEPTH; depth++) {
    if (at === self) return 'a command of this server';
    if (shared.has(at)) break;
    const environ = readEnviron(at);
    if (environ && hasEntry(environ, TAG_ENTRY)) return 'a command of a dsh-tools server';
    const stat = readStat(at);
    if (!stat) break;
    at = stat.ppid;
  }
  return looksConfined(pid, self) ? 'a confined process (no_new_privs, a seccomp filter, its own PID namespace)' : undefined;
}

/** `pid`'s ancestors (not itself), up to init. */
function ancestorsOf(pid: number): Set<number> {
  const ancestors = new Set<number>();
  let at = readStat(pid)?.ppid ?? 0;
  for (let depth = 0; at > 0 && depth < MAX_DEPTH && !ancestors.has(at); depth++) {
    ancestors.add(at);
    at = readStat(at)?.ppid ?? 0;
  }
  return ancestors;
}

function looksConfined(pid: number, self: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return false;
  }
  if (!/^NoNewPrivs:\s*1$/m.test(status) || !/^Seccomp:\s*2$/m.test(status)) return false;
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`) !== readlinkSync(`/proc/${self}/ns/pid`);
  } catch {
    return false;
  }
}
