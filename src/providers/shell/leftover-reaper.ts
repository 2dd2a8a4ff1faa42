import { hasEntry, killPid, listPids, newestPid, readEnviron } from './proc-environ.js';
import { PROCESS_TAG_VARIABLE } from './process-tag.js';

export { INSTANCE_ID, newProcessTag, PROCESS_TAG_VARIABLE } from './process-tag.js';
export { newestPid } from './proc-environ.js';

/** Past this, the pid counter may have wrapped since the leader started: scan every pid. */
const FULL_SCAN_AFTER_MS = 1_000;
/** Each pass kills what it finds; a survivor may have forked meanwhile, so look again, bounded. */
const MAX_PASSES = 16;

/**
 * Finds and SIGKILLs the live processes carrying one call's tag, and counts
 * them. Cheap when nothing was started: pids are handed out in order, so when
 * the newest pid (`/proc/loadavg`) is still the leader's, no process can
 * carry the tag and no directory is read.
 */
export class LeftoverReaper {
  private readonly killed = new Set<number>();
  private readonly needle: Buffer;
  private readonly startedAt = performance.now();

  /**
   * `sincePid`: the newest pid when the tag was handed out, for a leader
   * started before that (a pre-started shell); its carriers all came later.
   */
  constructor(
    tag: string,
    leaderPid: number,
    sincePid: number = leaderPid,
  ) {
    this.needle = Buffer.from(`${PROCESS_TAG_VARIABLE}=${tag}\0`);
    this.leaderPid = sincePid;
  }

  /** The pid after which carriers of the tag were handed out. */
  private readonly leaderPid: number;

  /** Processes this reaper killed so far. */
  get count(): number {
    return this.killed.size;
  }

  /** Kills every live carrier of the tag (the leader must have exited). */
  reap(): void {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const newest = newestPid();
      if (newest === this.leaderPid) return;
      let found = 0;
      for (const pid of this.candidates(newest)) {
        if (!carries(pid, this.needle) || !killPid(pid)) continue;
        if (!this.killed.has(pid)) found++;
        this.killed.add(pid);
      }
      if (found === 0) return;
    }
  }

  /**
   * Pids that may carry the tag: those handed out after the leader's, tried
   * by number when few were (no directory listing); every pid when the
   * counter may have wrapped (it did, or the command ran long).
   */
  private candidates(newest: number | undefined): Iterable<number> {
    const leader = this.leaderPid;
    if (newest === undefined || newest < leader || performance.now() - this.startedAt > FULL_SCAN_AFTER_MS) return listPids();
    if (newest - leader <= MAX_PROBED_PIDS) return range(leader + 1, newest);
    return listPids().filter((pid) => pid > leader);
  }
}

/** Up to this many new pids are probed one by one; more are found by listing /proc. */
const MAX_PROBED_PIDS = 128;

function* range(from: number, to: number): Iterable<number> {
  for (let pid = from; pid <= to; pid++) yield pid;
}

/**
 * Kills every live process carrying `tag` with a scan of every pid (for a
 * long-lived leader such as a persistent shell, where pid order says
 * nothing). Returns how many.
 */
export function killTagged(tag: string): number {
  return killTaggedWithPrefix(`${tag}\0`);
}

/** Kills every live process whose tag starts with `prefix` (any call of one server). Returns how many. */
export function killTaggedWithPrefix(prefix: string, exceptPid = process.pid): number {
  const needle = Buffer.from(`${PROCESS_TAG_VARIABLE}=${prefix}`);
  let total = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let found = 0;
    for (const pid of listPids()) {
      if (pid !== exceptPid && carries(pid, needle) && killPid(pid)) found++;
    }
    total += found;
    if (found === 0) break;
  }
  return total;
}

/** True when an entry of `pid`'s environment starts with `needle`. */
function carries(pid: number, needle: Buffer): boolean {
  const environ = readEnviron(pid);
  return environ !== undefined && hasEntry(environ, needle);
}
