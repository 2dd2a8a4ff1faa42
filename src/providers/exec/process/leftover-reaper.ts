import { hasEntry, killPid, listPids, newestPid, readEnviron } from './proc-environ.js';
import { PROCESS_TAG_VARIABLE } from './process-tag.js';
import { MAX_PASSES, reapSoon, type ReapJob } from './reap-batch.js';
import { monotonicMs } from '../../../core/monotonic-ms.js';

export { INSTANCE_ID, newProcessTag, PROCESS_TAG_VARIABLE } from './process-tag.js';
export { newestPid } from './proc-environ.js';

/** Past this, the pid counter may have wrapped since the leader started: scan every pid. */
const FULL_SCAN_AFTER_MS = 1_000;

/**
 * Finds and SIGKILLs the live processes carrying one call's tag, and counts
 * them. Cheap when nothing was started: pids are handed out in order, so when
 * the newest pid (`/proc/loadavg`) is still the leader's, no process can
 * carry the tag and no directory is read.
 */
export class LeftoverReaper implements ReapJob {
  private readonly killed = new Set<number>();
  private readonly startedAt = monotonicMs();

  /**
   * `sincePid`: the newest pid when the tag was handed out, for a leader
   * started before that (a pre-started shell); its carriers all came later.
   */
  constructor(
    readonly tag: string,
    leaderPid: number,
    readonly sincePid: number = leaderPid,
  ) {}

  /** Processes this reaper killed so far. */
  get count(): number {
    return this.killed.size;
  }

  get scanAll(): boolean {
    return monotonicMs() - this.startedAt > FULL_SCAN_AFTER_MS;
  }

  recordKill(pid: number): boolean {
    if (this.killed.has(pid)) return false;
    this.killed.add(pid);
    return true;
  }

  /**
   * Kills every live carrier of the tag (the leader must have exited), then
   * calls `done`: at once when no pid was handed out since the leader's,
   * else after a /proc pass shared with the other reaps of this tick.
   */
  reap(done: () => void): void {
    if (newestPid() === this.sincePid) done();
    else reapSoon(this, done);
  }
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
      if (pid === exceptPid) continue;
      const environ = readEnviron(pid);
      if (environ !== undefined && hasEntry(environ, needle) && killPid(pid)) found++;
    }
    total += found;
    if (found === 0) break;
  }
  return total;
}
