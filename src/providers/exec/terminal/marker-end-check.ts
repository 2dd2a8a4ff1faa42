import { readFileSync, readlinkSync } from 'node:fs';
import { hasProcFs, readStat } from '../process/process-tree.js';
import { readsTerminal, shellTty } from './stdin-wait-probe.js';

/** Longest pause between two idle checks of a shell whose end marker is not confirmed yet. */
const MAX_RECHECK_MS = 50;
/** Checks on the next loop turns first: a real end reaches its terminal read within microseconds. */
const QUICK_RECHECKS = 20;
/**
 * After the shell was seen busy since the last marker, how long it must
 * stay idle with no output before the end is believed: its real end marker
 * may still be on its way (written before it went idle, not read yet).
 */
const SETTLE_MS = 150;
/**
 * How long the shell may stay on a CPU after a marker before that counts as
 * busy: between its prompt and its read it runs for microseconds, but on a
 * loaded machine it may wait that long for a CPU, and a transport that passes
 * the marker on at once (a held terminal) sees it then. Checked every
 * millisecond meanwhile.
 */
const RUNNING_GRACE_MS = 20;

/** How /proc shows a shell: at its prompt, busy (a foreground job, or asleep elsewhere), or on a CPU. */
export type ShellState = 'idle' | 'busy' | 'running';

/**
 * `idle` when the shell is back at its prompt as /proc shows it from
 * outside: no foreground job (the terminal's foreground group is the
 * shell's own), and the shell itself asleep reading the terminal. A command
 * cannot fake this with a child; undefined when this machine cannot look
 * (no /proc, or the shell runs on another machine's engine).
 */
export function shellState(shellPid: number | undefined, tty: string): ShellState | undefined {
  if (shellPid === undefined || tty === '' || !hasProcFs) return undefined;
  const stat = readStat(shellPid);
  if (!stat) return undefined;
  if (stat.tpgid !== stat.pgrp) return 'busy';
  if (stat.state !== 'S') return 'running';
  return inTerminalRead(shellPid, tty) ? 'idle' : 'busy';
}

/**
 * The shell's terminal and its own pid, read at its first prompt: it then
 * leads the terminal's foreground group (under bwrap it is not `hostPid`).
 */
export function promptShell(hostPid: number): { tty: string; shellPid: number } {
  const leader = readStat(hostPid)?.tpgid;
  return { tty: shellTty(hostPid), shellPid: leader !== undefined && leader > 0 ? leader : hostPid };
}

/** read(2)'s number where a shell at its prompt sleeps (bash --noediting reads fd 0). */
const READ_SYSCALL: Readonly<Record<string, number>> = { x64: 0, arm64: 63 };

/**
 * The one syscall a shell at its prompt sleeps in, read straight from
 * /proc/<pid>/syscall (the general `readsTerminal` tries the costlier wchan
 * first, and knows selects and epolls a prompt never uses).
 */
function inTerminalRead(pid: number, tty: string): boolean {
  const read = READ_SYSCALL[process.arch];
  if (read === undefined) return readsTerminal(pid, tty);
  try {
    const [nr, fd] = readFileSync(`/proc/${pid}/syscall`, 'latin1').split(' ');
    return Number(nr) === read && readlinkSync(`/proc/${pid}/fd/${Number.parseInt(fd ?? '', 16)}`) === tty;
  } catch {
    return false;
  }
}

/**
 * An end marker of the current call, not yet believed. The markers are
 * printed from inside the shell, where the command runs too and can read
 * the nonce and the secret, so a marker alone proves nothing: the end is
 * confirmed only once the shell is seen idle (`shellState`). Until then the
 * command's output keeps being read and held; the first marker counts as
 * forged when another end marker of this call follows it other than the one
 * prompt after the end marker (a real frame prints each once), and the held
 * text is output after all. Held text of a confirmed end is dropped, as any
 * output after an end always was (a background job's late line). A shell
 * seen busy after the last marker was still running the command, so its
 * real end marker is still to come: idle then counts only once it lasted
 * `SETTLE_MS` with no output.
 */
export class EndCheck {
  private last: 'end' | 'prompt' | undefined;
  private status = 0;
  private forgedMarker = false;
  /** Text after the first end marker: output only if that marker turns out forged. */
  private held = '';
  private timer?: NodeJS.Timeout;
  private quick?: NodeJS.Immediate;
  private quickLeft = QUICK_RECHECKS;
  private delay = 1;
  private settled = false;
  /** The shell was seen busy since the last marker. */
  private busySince = false;
  private idleSince: number | undefined;
  /** When the last marker came (`RUNNING_GRACE_MS` counts from it). */
  private markerAt = 0;

  constructor(
    private readonly state: () => ShellState | undefined,
    private readonly onConfirmed: (exitCode: number, forged: boolean) => void,
  ) {}

  get pending(): boolean {
    return this.last !== undefined && !this.settled;
  }

  /** Another end marker of this call (no status: keep the last one); returns held text that is output after all (the earlier marker was forged). */
  candidate(via: 'end' | 'prompt', exitCode?: number): string {
    let flushed = '';
    const promptAfterEnd = this.last === 'end' && via === 'prompt';
    if (this.last !== undefined && !promptAfterEnd) flushed = this.forge();
    // The end marker's status stands for its prompt, as it always did.
    if (exitCode !== undefined && !promptAfterEnd) this.status = exitCode;
    this.last = via;
    this.busySince = false;
    this.idleSince = undefined;
    this.markerAt = performance.now();
    return flushed;
  }

  /** Output read while an end is pending: what of it is the command's output now. */
  output(text: string): string {
    if (text !== '') this.idleSince = undefined;
    if (this.forgedMarker) return text;
    this.held += text;
    return '';
  }

  /** Stops checking; returns the held text unless the end was confirmed (a timeout or abort: it is the command's). */
  abandon(): string {
    this.cancel();
    const held = this.settled ? '' : this.held;
    this.settled = true;
    this.held = '';
    return held;
  }

  /** Confirms now if the shell is idle (or cannot be looked at), else checks again soon. */
  check(): void {
    if (!this.pending) return;
    this.cancel();
    const state = this.state();
    if (state === undefined || (state === 'idle' && this.settledIdle())) {
      this.settled = true;
      this.onConfirmed(this.status, this.forgedMarker);
      return;
    }
    const waitingForCpu = state === 'running' && !this.busySince && performance.now() - this.markerAt < RUNNING_GRACE_MS;
    if (state === 'busy' || (state === 'running' && this.quickLeft <= 0 && !waitingForCpu)) this.busySince = true;
    if (state !== 'idle') this.idleSince = undefined;
    if (this.quickLeft-- > 0) {
      this.quick = setImmediate(() => this.check());
      return;
    }
    if (waitingForCpu) {
      this.timer = setTimeout(() => this.check(), 1);
      return;
    }
    this.timer = setTimeout(() => this.check(), this.delay);
    this.delay = Math.min(this.delay * 2, MAX_RECHECK_MS);
  }

  /** Idle counts at once, unless the shell was busy since the last marker: then only after SETTLE_MS of quiet. */
  private settledIdle(): boolean {
    if (!this.busySince) return true;
    const now = performance.now();
    this.idleSince ??= now;
    return now - this.idleSince >= SETTLE_MS;
  }

  private cancel(): void {
    clearTimeout(this.timer);
    clearImmediate(this.quick);
  }

  private forge(): string {
    this.forgedMarker = true;
    const held = this.held;
    this.held = '';
    return held;
  }
}
