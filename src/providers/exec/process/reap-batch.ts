import { forEachValue, killPid, listPids, newestPid, readEnviron } from './proc-environ.js';
import { PROCESS_TAG_VARIABLE } from './process-tag.js';

/** What the batch needs of one reap (see LeftoverReaper). */
export interface ReapJob {
  readonly tag: string;
  /** The newest pid when the tag was handed out: the tag's carriers came later, unless the counter wrapped. */
  readonly sincePid: number;
  /** True when pid order says nothing any more (the command ran long): every pid is looked at. */
  readonly scanAll: boolean;
  /** Records a carrier killed by the batch; true when it was not killed before. */
  recordKill(pid: number): boolean;
}

/** Each pass kills what it finds; a survivor may have forked meanwhile, so look again, bounded. */
export const MAX_PASSES = 16;
/** Up to this many new pids are probed one by one; more are found by listing /proc. */
const MAX_PROBED_PIDS = 128;

const PREFIX = Buffer.from(`${PROCESS_TAG_VARIABLE}=`);
/** Reaps asked for in this tick, each with the callbacks to run once it is done. */
let pending = new Map<ReapJob, Array<() => void>>();

/**
 * Runs `done` once every live carrier of the job's tag is killed. Every reap
 * asked for in the same tick shares one /proc pass (commands often end
 * together: many concurrent calls, a disposal of many tasks): each pid's
 * environment is read once and its tag looked up among all of theirs.
 */
export function reapSoon(job: ReapJob, done: () => void): void {
  const callbacks = pending.get(job);
  if (callbacks !== undefined) {
    callbacks.push(done);
    return;
  }
  pending.set(job, [done]);
  if (pending.size === 1) setImmediate(runBatch);
}

function runBatch(): void {
  const batch = pending;
  pending = new Map();
  try {
    reapAll([...batch.keys()]);
  } finally {
    for (const callbacks of batch.values()) for (const done of callbacks) runApart(done);
  }
}

/** One failing callback must not leave the other calls waiting forever: its error surfaces on its own. */
function runApart(done: () => void): void {
  try {
    done();
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

/** Kills the carriers of every job's tag; a job stops once a pass finds nothing new of its own. */
function reapAll(jobs: ReapJob[]): void {
  const stackTraceLimit = Error.stackTraceLimit;
  // A probe meets many pids that are gone already: skip the stack traces of those ENOENTs.
  Error.stackTraceLimit = 0;
  try {
    let active = jobs;
    for (let pass = 0; pass < MAX_PASSES && active.length > 0; pass++) {
      const newest = newestPid();
      // No pid handed out since the tag was: nothing can carry it.
      active = active.filter((job) => job.sincePid !== newest);
      if (active.length > 0) active = scanOnce(active, newest);
    }
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** One look at every candidate pid; returns the jobs that killed something new. */
function scanOnce(jobs: ReapJob[], newest: number | undefined): ReapJob[] {
  const byTag = new Map(jobs.map((job) => [job.tag, job]));
  const found = new Set<ReapJob>();
  for (const pid of candidates(jobs, newest)) {
    const environ = readEnviron(pid);
    if (environ === undefined) continue;
    forEachValue(environ, PREFIX, (value) => {
      const job = byTag.get(value);
      if (job !== undefined && killPid(pid) && job.recordKill(pid)) found.add(job);
    });
  }
  return jobs.filter((job) => found.has(job));
}

/**
 * Pids that may carry one of the tags: those handed out after the oldest
 * job's start, tried by number when few were (no directory listing); every
 * pid when the counter may have wrapped (it did, or a command ran long).
 */
function candidates(jobs: ReapJob[], newest: number | undefined): Iterable<number> {
  let since = Infinity;
  for (const job of jobs) {
    if (job.scanAll || newest === undefined || newest < job.sincePid) return listPids();
    since = Math.min(since, job.sincePid);
  }
  if (newest! - since <= MAX_PROBED_PIDS) return range(since + 1, newest!);
  return listPids().filter((pid) => pid > since);
}

function* range(from: number, to: number): Iterable<number> {
  for (let pid = from; pid <= to; pid++) yield pid;
}
