import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { readStat } from './proc-stat.js';

/**
 * The /proc reads the leftover reaper is made of: the newest pid, every pid,
 * a process's environment, and a quiet SIGKILL. Linux only; where /proc
 * cannot be read every answer is "nothing".
 */

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
export function listPids(): number[] {
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

/** Reused by every environ read: a scan reads hundreds, one at a time, each consumed before the next. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/** The whole file into `scratch` (valid until the next call); undefined when it cannot be opened. */
function readIntoScratch(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined; // gone, or not ours to read
  }
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) scratch = Buffer.concat([scratch, Buffer.allocUnsafe(scratch.length)]);
      const read = readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) return scratch.subarray(0, length);
      length += read;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A process caught inside `execve` (a daemon exec'ing right as its parent
 * exits) shows an empty environment for a moment: look again, briefly, unless
 * it is a kernel thread or already dead, whose environment stays empty.
 */
const EMPTY_ENVIRON_RETRIES = 20;

/**
 * `pid`'s environment (NUL-separated entries), valid until the next call;
 * undefined when the process is gone or not ours.
 */
export function readEnviron(pid: number): Buffer | undefined {
  const path = `/proc/${pid}/environ`;
  for (let attempt = 0; ; attempt++) {
    const environ = readIntoScratch(path);
    if (environ === undefined) return undefined;
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

/** True when an entry of `environ` starts with `needle`. */
export function hasEntry(environ: Buffer, needle: Buffer): boolean {
  let at = environ.indexOf(needle);
  while (at !== -1) {
    if (at === 0 || environ[at - 1] === 0) return true;
    at = environ.indexOf(needle, at + 1);
  }
  return false;
}

/** Calls `visit` with the value of every entry `<prefix>value` of `environ` (`prefix` ends with '='). */
export function forEachValue(environ: Buffer, prefix: Buffer, visit: (value: string) => void): void {
  let at = environ.indexOf(prefix);
  while (at !== -1) {
    const start = at + prefix.length;
    const end = environ.indexOf(0, start);
    if (at === 0 || environ[at - 1] === 0) visit(environ.toString('latin1', start, end === -1 ? environ.length : end));
    at = environ.indexOf(prefix, start);
  }
}

/** SIGKILL; false when the process is gone or not ours. */
export function killPid(pid: number): boolean {
  return quietly(() => process.kill(pid, 'SIGKILL'));
}

/**
 * Runs `work` without capturing stack traces for the errors it throws and
 * catches (a scan meets hundreds of ENOENTs). Returns false when it threw.
 */
export function quietly(work: () => void): boolean {
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    work();
    return true;
  } catch {
    return false;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}
