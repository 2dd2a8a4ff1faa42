/**
 * Decides (Linux /proc) whether the foreground job of a PTY is blocked
 * reading the terminal: `read x`, `cat` with no input, a REPL at its prompt.
 * Used only after a quiet period of a running command, never on the hot path.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hasProcFs, processTree, readStat, type ProcStat } from '../process/process-tree.js';

interface SyscallTable {
  /** read-like calls whose first argument is the fd. */
  readonly reads: ReadonlySet<number>;
  /** select-like calls whose first argument is nfds. */
  readonly selects: ReadonlySet<number>;
  /** epoll waits whose first argument is the epoll fd (event-loop programs: node, many REPLs). */
  readonly epolls: ReadonlySet<number>;
}

const SYSCALLS: Readonly<Record<string, SyscallTable>> = {
  x64: { reads: new Set([0, 19]), selects: new Set([23, 270]), epolls: new Set([232, 281, 441]) },
  arm64: { reads: new Set([63, 65]), selects: new Set([72]), epolls: new Set([22, 441]) },
};

const EPOLLIN = 0x1;

const table: SyscallTable | undefined = SYSCALLS[process.arch];

/** Kernel wait channels that only a terminal read sleeps in (older kernels name it directly). */
const TTY_WCHANS = new Set(['n_tty_read']);

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1').trim();
  } catch {
    return undefined;
  }
}

function fdTarget(pid: number, fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** The PTY itself, or `/dev/tty` opened by a program that prompts there (passwords, pagers). */
function isTerminal(target: string | undefined, tty: string): boolean {
  return target === tty || target === '/dev/tty';
}

/** True when `pid` sleeps in a read of `tty`, or in a select over descriptors that are all `tty`. */
export function readsTerminal(pid: number, tty: string): boolean {
  const wchan = readText(`/proc/${pid}/wchan`);
  if (wchan !== undefined && TTY_WCHANS.has(wchan)) return true;
  const syscall = readText(`/proc/${pid}/syscall`);
  if (syscall === undefined || table === undefined) return false;
  const [nr, first] = syscall.split(' ');
  const number = Number(nr);
  const arg = Number.parseInt(first ?? '', 16);
  if (!Number.isInteger(number) || !Number.isInteger(arg)) return false;
  if (table.reads.has(number)) return isTerminal(fdTarget(pid, arg), tty);
  if (table.epolls.has(number)) return epollWatchesTerminal(pid, arg, tty);
  if (table.selects.has(number) && arg > 0 && arg <= 16) {
    // The fd sets are in the process's memory; only when every open fd below
    // nfds is the terminal can the select be waiting for nothing but it.
    let sawTty = false;
    for (let fd = 0; fd < arg; fd++) {
      const target = fdTarget(pid, fd);
      if (target === undefined) continue;
      if (!isTerminal(target, tty)) return false;
      sawTty = true;
    }
    return sawTty;
  }
  return false;
}

/**
 * True when the epoll set `epfd` of `pid` waits for input on the terminal.
 * An event loop blocked there is idle until the terminal (or something else
 * it watches) becomes readable; a loop that does not watch the terminal
 * (a server, a timer) is not waiting for the user.
 */
function epollWatchesTerminal(pid: number, epfd: number, tty: string): boolean {
  const info = readText(`/proc/${pid}/fdinfo/${epfd}`);
  if (info === undefined) return false;
  for (const match of info.matchAll(/^tfd:\s+(\d+)\s+events:\s+([0-9a-f]+)/gm)) {
    if ((Number.parseInt(match[2]!, 16) & EPOLLIN) !== 0 && isTerminal(fdTarget(pid, Number(match[1])), tty)) return true;
  }
  return false;
}

type StdinWait = 'waiting' | 'busy';

/**
 * Inspects the PTY's foreground process group (from the shell's tpgid). It
 * waits for input when none of its members is runnable and at least one is
 * blocked reading the terminal. The shell itself counts (the `read`
 * builtin); callers rule out the shell's own prompt by other means.
 */
export function probeStdinWait(shellPid: number, tty: string): StdinWait {
  if (!hasProcFs || tty === '') return 'busy';
  const shell = readStat(shellPid);
  if (!shell || shell.tpgid <= 0) return 'busy';
  const members: ProcStat[] = processTree(shellPid).filter((p) => p.pgrp === shell.tpgid);
  if (members.length === 0) return 'busy';
  if (members.some((p) => p.state === 'R' || p.state === 'D')) return 'busy';
  return members.some((p) => p.state === 'S' && readsTerminal(p.pid, tty)) ? 'waiting' : 'busy';
}

/** The terminal device the shell's stdin is attached to ('' when unknown). */
export function shellTty(shellPid: number): string {
  return fdTarget(shellPid, 0) ?? '';
}
