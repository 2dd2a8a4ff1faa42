import type { Readable } from 'node:stream';
import { SEALED_SHELL_FD, sealedProgram, sealedShell } from './sealed-shell.js';

/** The descriptor the namespace reaper reports on: a pipe whose read end only the host holds. */
export const REAPER_CHANNEL_FD = 5;

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
 * pidfd_getfd. It writes exactly one record, `<n>\n`, after the command
 * ended; anything else on the channel means the count is unavailable. Its
 * argv holds no secret (any process may read /proc/<pid>/cmdline). The
 * command keeps stdin and its other descriptors; its status is passed on as
 * bwrap would (a signal as 128 + n). The scan's own errors (a process gone
 * between the glob and the read) go to /dev/null.
 */
const REAP_SCRIPT =
  `exec ${SEALED_SHELL_FD}<&-; "$@" ${REAPER_CHANNEL_FD}>&-; s=$?; k=; ` +
  'for d in /proc/[0-9]*; do q=${d#/proc/}; { [ "$q" = 1 ] || [ "$q" = "$$" ]; } && continue; ' +
  // Zombies are already dead.
  'read -r x <"$d/stat" || continue; x=${x##*) }; [ "${x%% *}" = Z ] && continue; k="$k $q"; done 2>/dev/null; n=0; ' +
  // All stopped first: none can start another process while the others are killed.
  'if [ -n "$k" ]; then kill -STOP $k 2>/dev/null; for q in $k; do kill -9 "$q" 2>/dev/null && n=$((n+1)); done; fi; ' +
  `printf '%d\\n' "$n" >&${REAPER_CHANNEL_FD}; exit $s`;

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

/** The count in the channel's whole content, or undefined when it is not exactly one well-formed record. */
export function parseReaperReport(content: Buffer): number | undefined {
  const match = /^(\d{1,9})\n$/.exec(content.toString('latin1'));
  return match === null ? undefined : Number(match[1]);
}

/** Collects the reaper's channel (bounded: a well-formed record is at most 10 bytes). */
export class ReaperReport {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  /** Bytes beyond the longest record. */
  private static readonly LIMIT = 16;

  take(chunk: Buffer): void {
    if (this.bytes <= ReaperReport.LIMIT) this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  /** The reported count; undefined when the channel did not carry exactly one record. */
  get count(): number | undefined {
    return this.bytes > ReaperReport.LIMIT ? undefined : parseReaperReport(Buffer.concat(this.chunks));
  }
}

/** The read end of a reaped spawn's channel. */
export function reaperChannelOf(child: { readonly stdio: readonly unknown[] }): Readable {
  return child.stdio[REAPER_CHANNEL_FD] as Readable;
}
