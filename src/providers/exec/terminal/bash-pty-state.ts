import { constants as osConstants } from 'node:os';
import { MAX_TIMER_MS } from '../../../core/timer.js';
import type { EndCheck } from './marker-end-check.js';
import type { MarkerParser } from './marker-parser.js';
import type { OutputCollector } from './output-collector.js';
import { ProgressReporter } from '../shell/progress-reporter.js';
import type { SendOptions, SendResult } from './terminal-service.js';

// The per-command state a MarkerShell keeps, and how its bash ended.

/** The command currently framed in the shell; it outlives a send that returned early (stdin wait). */
export interface Running {
  readonly parser: MarkerParser;
  collector: OutputCollector;
  exitCode?: number;
  /** The shell came back to its prompt without running this command's frame. */
  lost?: boolean;
  /** The line spans several physical lines: bash may wait in a read for the rest while it is still being written. */
  multiLine?: boolean;
  /** Set by the first end marker: the end is believed once the shell is seen back at its prompt. */
  endCheck?: EndCheck;
  /** An end marker of this call came while the command still ran (see EndCheck). */
  forgedEnd?: boolean;
}

/** The send waiting for `running` to settle. */
export interface Attached {
  readonly resolve: (result: SendResult) => void;
  /** Present only when the caller listens for progress. */
  readonly progress?: ProgressReporter;
  readonly continuation?: { readonly inputDelivered: boolean };
  readonly dispose: () => void;
}

/**
 * Ties one send to its deadline, its abort signal and its progress listener
 * (the one `MarkerShell` serves the local PTY and the container TTY); `dispose` undoes
 * all three and stops the stdin-wait watcher.
 */
export function attachSend(
  resolve: Attached['resolve'],
  options: SendOptions,
  continuation: Attached['continuation'],
  session: { readonly interrupt: (kind: 'timeout' | 'aborted') => void; readonly watcher: { stop(): void } },
): Attached {
  const timeout = setTimeout(() => session.interrupt('timeout'), options.timeoutMs);
  const onAbort = (): void => session.interrupt('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const progress = options.onProgress ? new ProgressReporter(options.onProgress) : undefined;
  return {
    resolve,
    progress,
    continuation,
    dispose: () => {
      progress?.stop();
      clearTimeout(timeout);
      session.watcher.stop();
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** How the PTY's bash ended (named apart from the one-shot executor's `ShellExit`). */
export interface PtyExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, n]) => [n, name]));

/** `SIGTERM` for 15; `SIG<n>` for a number the platform does not name. */
export function signalName(signal: number): string {
  return SIGNAL_NAMES.get(signal) ?? `SIG${signal}`;
}

/** Why `timeoutMs` cannot time a send: setTimeout would fire at once and take the shell down with a bogus timeout. */
export function invalidTimeout(timeoutMs: number): Error | undefined {
  if (typeof timeoutMs === 'number' && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS) return undefined;
  return new Error(`invalid timeoutMs: expected a positive number of milliseconds up to ${MAX_TIMER_MS}, got ${String(timeoutMs)}`);
}
