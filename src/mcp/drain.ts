import type { Logger } from '../providers/logging/logger.js';

/** How long the answers of calls cancelled at the end of a drain may take to go out. */
const CANCELLED_ANSWERS_MS = 10_000;

/**
 * A drain's timing: wait up to `timeoutMs` for the answers in flight
 * (`answered`), then cancel what is left and wait (bounded) for those
 * answers too. New work is refused by the caller before this starts.
 * Its start and end are one structured `info` line each (`drain_start`,
 * `drain_end` with how it ended and how long it took).
 */
export async function drainWithin(
  timeoutMs: number,
  answered: () => Promise<void>,
  cancel: () => void,
  logger?: Logger,
): Promise<void> {
  const started = performance.now();
  logger?.info('drain: started', { event: 'drain_start', timeoutMs });
  const ended = (outcome: 'answered' | 'cancelled' | 'unanswered') =>
    logger?.info('drain: ended', { event: 'drain_end', outcome, durationMs: Math.round(performance.now() - started) });
  if (await settlesWithin(answered(), timeoutMs)) return void ended('answered');
  logger?.warn(`drain: calls still running after ${timeoutMs / 1000} s (--drain-timeout): cancelling them`);
  cancel();
  if (await settlesWithin(answered(), CANCELLED_ANSWERS_MS)) return void ended('cancelled');
  logger?.warn('drain: some cancelled calls did not answer; closing anyway');
  ended('unanswered');
}

/** True when `promise` settled within `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const, () => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
