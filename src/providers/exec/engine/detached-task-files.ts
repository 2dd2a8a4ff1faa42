import { closeSync, fstatSync, lstatSync, openSync, readSync, constants as fsConstants } from 'node:fs';
import type { Redactor } from '../../output-filter/redactor.js';
import { signalName } from '../process/exec-status.js';
import { workdirMessage, type WorkdirProblem } from '../process/workdir-check.js';
import { joinStreams, type OutputDelta, type ProcessOutcome } from '../shell/shell-executor.js';
import type { ContainerEngine } from './container-engine.js';
import { runFiles, type DetachedRun, type RunCap } from './detached-task.js';
import { readStreamBytes } from './detached-task-stream.js';

// Reading and stopping a detached command (detached-task.ts) from its files, on any replica.

/** How often a stop that has not ended the command is repeated with KILL, and how many times. */
const KILL_RETRY_MS = 500;
const KILL_RETRIES = 10;

/** How far each stream was read. */
export interface RunOffsets {
  readonly out: number;
  readonly err: number;
}

/** How a detached command ended, once its status file is there. */
interface RunEnd {
  readonly outcome: ProcessOutcome;
  readonly endedAt: number;
}

/** The end its status file records; undefined while it runs (or when the file is unreadable). */
export function readRunEnd(run: DetachedRun): RunEnd | undefined {
  const file = runFiles(run).status;
  let text: string;
  let endedAt: number;
  try {
    const fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) return undefined;
      endedAt = stat.mtimeMs;
      const buffer = Buffer.alloc(64);
      text = buffer.subarray(0, readSync(fd, buffer, 0, 64, 0)).toString('latin1').trim();
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const match = /^(exit|signal|workdir):([a-z0-9]{1,9})$/.exec(text);
  if (!match) return { outcome: { exitCode: null, signal: null }, endedAt: Math.round(endedAt) };
  const [, field, value] = match as unknown as [string, string, string];
  const outcome: ProcessOutcome =
    field === 'exit'
      ? { exitCode: Number(value), signal: null }
      : field === 'signal'
        ? { exitCode: null, signal: signalName(Number(value)) ?? `signal ${value}` }
        : { exitCode: null, signal: null, error: workdirMessage(value as WorkdirProblem, run.workdir) };
  return { outcome, endedAt: Math.round(endedAt) };
}

/**
 * What both streams gained since `from`: stdout, then stderr under its
 * `[stderr]` line (as every background read shows them). While the command
 * runs, a multi-byte character cut at the end of a file waits for the next
 * read. A stream that gained more than `maxBytes` shows its tail, with
 * `lost` and the files' paths while they keep everything; once a stream went
 * past the cap its file is gone, as a local task's spill is past
 * `maxSpillBytes`, and only the files that still hold a whole stream are named.
 */
export function readRunOutput(
  run: DetachedRun,
  from: RunOffsets,
  final: boolean,
  maxBytes: number,
  redactor?: Redactor,
): { readonly delta: OutputDelta; readonly offsets: RunOffsets } {
  const files = runFiles(run);
  const out = readFrom(files.out, run.cap, from.out, final, maxBytes);
  const err = readFrom(files.err, run.cap, from.err, final, maxBytes);
  const redact = (text: string): string => (redactor?.active === true ? redactor.redact(text) : text);
  const lost = out.clipped || err.clipped;
  return {
    delta: { text: joinStreams(redact(out.text), redact(err.text)), lost, spillPaths: lost ? spillPathsOf(files, out, err) : [] },
    offsets: { out: out.next, err: err.next },
  };
}

type StreamRead = { readonly text: string; readonly next: number; readonly clipped: boolean; readonly complete: boolean };

/** Both files while both hold their whole stream; else those of the clipped streams that still do (none: `(unavailable)`). */
function spillPathsOf(files: { readonly out: string; readonly err: string }, out: StreamRead, err: StreamRead): string[] {
  if (out.complete && err.complete) return [files.out, files.err];
  return [
    ...(out.clipped && out.complete ? [files.out] : []),
    ...(err.clipped && err.complete ? [files.err] : []),
  ];
}

/** Everything the stream holds past `offset`, clipped to its last `maxBytes`. */
function readFrom(file: string, cap: RunCap | undefined, offset: number, final: boolean, maxBytes: number): StreamRead {
  const { bytes: held, from, complete } = readStreamBytes(file, cap, offset, maxBytes);
  const clipped = from > offset;
  // A clipped tail starts at a character's first byte.
  const bytes = clipped ? held.subarray(leadingContinuation(held)) : held;
  const whole = final ? bytes.length : completeLength(bytes);
  return { text: bytes.subarray(0, whole).toString('utf8'), next: from + (held.length - bytes.length) + whole, clipped, complete };
}

/** Continuation bytes (10xxxxxx) at the start of a buffer cut mid-character. */
function leadingContinuation(bytes: Buffer): number {
  let n = 0;
  while (n < bytes.length && n < 3 && (bytes[n]! & 0xc0) === 0x80) n++;
  return n;
}

/** The length of `bytes` without a multi-byte character its end cuts short. */
function completeLength(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** Whether a detached command's status file is there (a link the sandbox planted is not). */
function runEnded(run: DetachedRun): boolean {
  try {
    return lstatSync(runFiles(run).status).isFile();
  } catch {
    return false;
  }
}

/**
 * Stops a detached command from any replica: TERM to its tagged tree, then
 * KILL after `graceMs` and again until its status file appears. Resolves
 * false when it had already ended, else true once it has (or the retries ran out).
 */
export async function stopDetached(engine: ContainerEngine, run: DetachedRun, graceMs: number): Promise<boolean> {
  if (runEnded(run)) return false;
  const signal = (kind: 'TERM' | 'KILL'): Promise<unknown> => engine.killTagged(run.containerId, run.tag, kind).catch(() => 0);
  await signal('TERM');
  if (await endedWithin(run, graceMs)) return true;
  for (let retry = 0; retry < KILL_RETRIES; retry++) {
    await signal('KILL');
    if (await endedWithin(run, KILL_RETRY_MS)) return true;
  }
  return true;
}

/** Whether the status file appears within `ms` (looked at every 50 ms). */
async function endedWithin(run: DetachedRun, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (runEnded(run)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, ms)).unref());
  }
}
