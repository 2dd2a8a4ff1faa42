import { localBackground } from './local-background-process.js';
import type { RunResult } from './shell-executor.js';
import type { OutputCapture } from './output-capture.js';
import type { ShellExit } from '../process/shell-exit.js';
import type { ShellProcess } from './shell-process.js';
import { monotonicMs } from '../../../core/monotonic-ms.js';

// Results the local executor builds outside its main path.

/** The `collapsedUpdates` field: present only when progress updates were dropped. */
export function collapsedUpdates(count: number): { collapsedUpdates?: number } {
  return count > 0 ? { collapsedUpdates: count } : {};
}

/**
 * The result of a run kept going past its timeout: the output so far, read
 * with the consuming reads the continuation goes on with, so the hand-over
 * neither repeats nor skips a byte. `unread`: the caller gave up on the call
 * and will show its result to no one, so nothing is consumed: the
 * continuation's first read starts at the command's first byte.
 */
export function continuedResult(shell: ShellProcess, timeoutMs: number, elapsedMs: number, unread = false): RunResult {
  const none = { text: '', lost: false, collapsed: 0 };
  const stdout = unread ? none : shell.stdout.readNew();
  const stderr = unread ? none : shell.stderr.readNew();
  const stdoutSpillPath = stdout.lost ? shell.stdout.spillPath : undefined;
  const stderrSpillPath = stderr.lost ? shell.stderr.spillPath : undefined;
  return {
    stdout: stdout.text,
    stderr: stderr.text,
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    timeoutMs,
    durationMs: Math.round(elapsedMs),
    stdoutTruncated: stdout.lost,
    stderrTruncated: stderr.lost,
    ...(stdoutSpillPath === undefined ? {} : { stdoutSpillPath }),
    ...(stderrSpillPath === undefined ? {} : { stderrSpillPath }),
    ...collapsedUpdates(stdout.collapsed + stderr.collapsed),
    continuation: localBackground(shell),
  };
}

export function abortedBeforeStart(signal: AbortSignal): Error {
  const error = new Error('command aborted before it started', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

/** The result of a command that ended: both captures as they stand, how it ended, how long it took. */
export function finishedResult(
  stdoutCapture: OutputCapture,
  stderrCapture: OutputCapture,
  exit: ShellExit,
  timeoutMs: number,
  startedAt: number,
): RunResult {
  const stdout = stdoutCapture.snapshot();
  const stderr = stderrCapture.snapshot();
  return {
    stdout: stdout.text,
    stderr: stderr.text,
    exitCode: exit.exitCode,
    signal: exit.signal,
    timedOut: exit.reason === 'timeout',
    aborted: exit.reason === 'abort',
    timeoutMs,
    durationMs: Math.round(monotonicMs() - startedAt),
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    ...(stdout.spillPath === undefined ? {} : { stdoutSpillPath: stdout.spillPath }),
    ...(stderr.spillPath === undefined ? {} : { stderrSpillPath: stderr.spillPath }),
    ...collapsedUpdates(stdoutCapture.collapsedUpdates + stderrCapture.collapsedUpdates),
  };
}
