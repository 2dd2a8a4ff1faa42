import type { Readable } from 'node:stream';
import { signalName } from './exec-status.js';
import { SEALED_SHELL_FD, sealedProgram, sealedShell } from './sealed-shell.js';

/** The descriptor the namespace reaper reports on: a pipe whose read end only the host holds. */
const REAPER_CHANNEL_FD = 5;

/**
 * A confined command in a PID namespace of its own (bwrap `--unshare-pid`)
 * takes everything it started with it when it ends: the namespace's init
 * exits and the kernel kills the rest, before the host's reaper can count
 * them. So the command runs under this small POSIX sh inside the namespace
 * (sh, not bash: it starts in half the time): when the command ends, every
 * other process of the namespace (all of them the command's, except the init
 * at pid 1) is stopped, then killed and counted.
 *
 * The count goes to the host on the reaper's own channel (fd 5), never on
 * the command's streams: the command runs with fd 5 (and the sealed shell's
 * fd 6) closed, and the reaper is the sealed shell (sealed-shell.ts), so no
 * process of the sandbox can reach its descriptors through /proc, ptrace or
 * pidfd_getfd. After the command ended it writes its job line (`jobs -l`:
 * `Done`, `Done(143)` or the name of the signal that killed it, which `$?`
 * alone cannot tell from `exit 128+n`), then `<n> <status>\n`; anything
 * else on the channel means the report is unavailable. Its argv holds no
 * secret (any process may read /proc/<pid>/cmdline). The command keeps
 * stdin (saved on fd 7: an async command's own would be /dev/null) and its
 * other descriptors; `env --default-signal` gives it back the signals the
 * reaper runs without: SIGINT and SIGQUIT (an async command ignores them)
 * and SIGTERM (ignored from the prelude on, so a stop reaches the command
 * and not the processes that report on it). Its status is passed on as bwrap
 * would (a signal as 128 + n). The reaper's own messages and the scan's
 * errors (a process gone between the glob and the read) go to /dev/null.
 */
const REAP_SCRIPT =
  `exec ${SEALED_SHELL_FD}<&- 7<&0; env --default-signal=TERM,INT,QUIT "$@" <&7 7<&- ${REAPER_CHANNEL_FD}>&- & p=$!; ` +
  // A stopped command does not end `wait` (no job control); nothing traps here, so no signal ends it early.
  `exec 7<&-; wait $p 2>/dev/null; s=$?; jobs -l >&${REAPER_CHANNEL_FD} 2>/dev/null; k=; ` +
  'for d in /proc/[0-9]*; do q=${d#/proc/}; { [ "$q" = 1 ] || [ "$q" = "$$" ]; } && continue; ' +
  // Zombies are already dead.
  'read -r x <"$d/stat" || continue; x=${x##*) }; [ "${x%% *}" = Z ] && continue; k="$k $q"; done 2>/dev/null; n=0; ' +
  // All stopped first: none can start another process while the others are killed.
  'if [ -n "$k" ]; then kill -STOP $k 2>/dev/null; for q in $k; do kill -9 "$q" 2>/dev/null && n=$((n+1)); done; fi; ' +
  `printf '%d %d\\n' "$n" "$s" >&${REAPER_CHANNEL_FD}; exit $s`;

/** `argv` run under the namespace reaper; use only inside a PID namespace of the command's own, spawned with `reaperStdio`. */
export function reapingArgv(argv: readonly string[]): string[] {
  const program = sealedShell() === null ? '/bin/sh' : sealedProgram();
  return [program, '-c', REAP_SCRIPT, 'dsh-reap', ...argv];
}

/** The stdio entries a reaped spawn adds (index: entry): the channel pipe, and the sealed shell when there is one. */
export function reaperStdio(): Map<number, 'pipe' | number> {
  const entries = new Map<number, 'pipe' | number>([[REAPER_CHANNEL_FD, 'pipe']]);
  const sealed = sealedShell();
  if (sealed !== null) entries.set(SEALED_SHELL_FD, sealed.fd);
  return entries;
}

/** The descriptors a reaped spawn passes on purpose (kept by `withoutStrayDescriptors`). */
export const REAPER_FDS: readonly number[] = [REAPER_CHANNEL_FD, SEALED_SHELL_FD];

/** What the reaper saw when the command ended. */
interface ReaperRecord {
  /** Processes it killed in the namespace. */
  readonly count: number;
  /** The signal that killed the command; undefined when it exited (its status is then the exit code). */
  readonly signal?: number;
}

/** dash's job line: `[1] + <pid> <state>` then padding; the state is `Done`, `Done(<code>)` or a signal's name. */
const JOB_LINE = /^\[\d+\] [+-]? *\d+ ([^\n]*)\n/;
const LAST_LINE = /^(\d{1,9}) (\d{1,3})\n$/;

/** The record in the channel's whole content, or undefined when it is not exactly one well-formed record. */
export function parseReaperReport(content: Buffer): ReaperRecord | undefined {
  let text = content.toString('latin1');
  const job = JOB_LINE.exec(text);
  if (job !== null) text = text.slice(job[0].length);
  const last = LAST_LINE.exec(text);
  if (last === null) return undefined;
  const status = Number(last[2]);
  // Without a job line nothing tells a death by signal from `exit 128+n`: the status stands as an exit code.
  const killed = job !== null && !job[1]!.startsWith('Done') && status > 128 && status < 128 + 65;
  return killed ? { count: Number(last[1]), signal: status - 128 } : { count: Number(last[1]) };
}

/** Collects the reaper's channel (bounded: a well-formed report is well under 128 bytes). */
export class ReaperReport {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  /** Bytes beyond the longest report. */
  private static readonly LIMIT = 128;

  take(chunk: Buffer): void {
    if (this.bytes <= ReaperReport.LIMIT) this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  /** The report; undefined when the channel did not carry exactly one. */
  get record(): ReaperRecord | undefined {
    return this.bytes > ReaperReport.LIMIT ? undefined : parseReaperReport(Buffer.concat(this.chunks));
  }

  /** The reported count; undefined when the channel did not carry exactly one report. */
  get count(): number | undefined {
    return this.record?.count;
  }
}

/** The read end of a reaped spawn's channel. */
export function reaperChannelOf(child: { readonly stdio: readonly unknown[] }): Readable {
  return child.stdio[REAPER_CHANNEL_FD] as Readable;
}

/**
 * How many leftovers a command's end killed, from the host's tag reaper and
 * the namespace reaper's report. Inside a PID namespace the namespace reaper
 * saw every process the command left and killed it; the host's tag reaper
 * runs after, and on a loaded machine still finds some of those dying (a
 * fork not yet exec'd shows the tag), so the two counts overlap: the larger
 * stands, never their sum. After a stop of ours the namespace's processes
 * were dying of it already: the host's count alone.
 */
export function leftoverCount(hostKilled: number, namespaceKilled: number | undefined, stoppedByUs: boolean): number {
  if (namespaceKilled === undefined || stoppedByUs) return hostKilled;
  return Math.max(hostKilled, namespaceKilled);
}

/** The leader's exit, with a death by signal the reaper saw put back (bwrap passes one on as 128 + n). */
export function reportedExit(
  leader: { readonly code: number | null; readonly signal: string | null },
  record: ReaperRecord | undefined,
): { exitCode: number | null; signal: string | null } {
  const killedBy = record?.signal;
  const name = killedBy === undefined || leader.code !== 128 + killedBy ? undefined : signalName(killedBy);
  return name === undefined ? { exitCode: leader.code, signal: leader.signal } : { exitCode: null, signal: name };
}
