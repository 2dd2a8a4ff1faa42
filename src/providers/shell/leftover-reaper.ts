import { randomBytes } from 'node:crypto';
import { openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { readStat } from '../terminal/process-tree.js';

/**
 * Every process a command starts inherits this variable (unless it rebuilds
 * its environment from scratch), whatever session or process group it moves
 * to: `/proc/<pid>/environ` keeps the environment a process was started with.
 * That finds `setsid`, `setpgid`, `nohup … &`, double-forked and disowned
 * processes without root or cgroups.
 */
export const PROCESS_TAG_VARIABLE = 'DSH_PROCESS_TAG';

/** This server process; every tag starts with it, so a watchdog can find all of them. */
export const INSTANCE_ID = randomBytes(6).toString('hex');

let sequence = 0;

/** A tag no other call of any server shares: `<instance>.<n>`. */
export function newProcessTag(): string {
  sequence += 1;
  return `${INSTANCE_ID}.${sequence}`;
}

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

let loadavgFd: number | undefined;
const loadavgBuffer = Buffer.alloc(128);

/**
 * The most recently assigned pid in our pid namespace (5th field of
 * /proc/loadavg). The file stays open: a read at offset 0 regenerates it,
 * one syscall on every command's path instead of three.
 */
export function newestPid(): number | undefined {
  try {
    loadavgFd ??= openSync('/proc/loadavg', 'r');
    const length = readSync(loadavgFd, loadavgBuffer, 0, loadavgBuffer.length, 0);
    const text = loadavgBuffer.toString('latin1', 0, length);
    const value = Number(text.slice(text.lastIndexOf(' ') + 1));
    return Number.isInteger(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Every pid in /proc; none when /proc cannot be read (then only the process group is signalled). */
function listPids(): number[] {
  const pids: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const name of names) {
    const code = name.charCodeAt(0);
    if (code >= 48 && code <= 57) pids.push(Number(name));
  }
  return pids;
}

/** True when an entry of `pid`'s environment starts with `needle`. */
function carries(pid: number, needle: Buffer): boolean {
  const environ = readEnviron(pid);
  if (environ === undefined) return false;
  let at = environ.indexOf(needle);
  while (at !== -1) {
    if (at === 0 || environ[at - 1] === 0) return true;
    at = environ.indexOf(needle, at + 1);
  }
  return false;
}

/**
 * A process caught inside `execve` (a daemon exec'ing right as its parent
 * exits) shows an empty environment for a moment: look again, briefly, unless
 * it is a kernel thread or already dead, whose environment stays empty.
 */
const EMPTY_ENVIRON_RETRIES = 20;

function readEnviron(pid: number): Buffer | undefined {
  for (let attempt = 0; ; attempt++) {
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      return undefined; // gone, or not ours to read
    }
    if (environ.length > 0 || attempt >= EMPTY_ENVIRON_RETRIES || !mayBeExecing(pid)) return environ;
    Atomics.wait(PAUSE, 0, 0, 1);
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));
/** `PF_KTHREAD` in the flags field of /proc/<pid>/stat. */
const PF_KTHREAD = 0x00200000;

/** False for kernel threads, zombies and processes already gone. */
function mayBeExecing(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X' && (stat.flags & PF_KTHREAD) === 0;
}

function killPid(pid: number): boolean {
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}
