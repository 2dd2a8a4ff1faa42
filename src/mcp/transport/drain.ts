import type { Logger } from '../../providers/logging/logger.js';

/** How long the answers of calls cancelled at the end of a drain may take to go out. */
const CANCELLED_ANSWERS_MS = 10_000;
/**
 * The same wait once the drain was hurried: a stdio client's SIGTERM after it
 * closed stdin gives about 2 s before its SIGKILL (docs/operations.md), and
 * disposal must fit in that too.
 */
const HURRIED_ANSWERS_MS = 500;

/**
 * A drain's timing: wait up to `timeoutMs` for the answers in flight
 * (`answered`), then cancel what is left and wait (bounded) for those
 * answers too. New work is refused by the caller before this starts.
 * `hurry` aborting ends the first wait at once and shortens the second.
 * Its start and end are one structured `info` line each (`drain_start`,
 * `drain_end` with how it ended and how long it took).
 */
export async function drainWithin(
  timeoutMs: number,
  answered: () => Promise<void>,
  cancel: () => void,
  logger?: Logger,
  hurry?: AbortSignal,
): Promise<void> {
  const started = performance.now();
  logger?.info('drain: started', { event: 'drain_start', timeoutMs });
  const ended = (outcome: 'answered' | 'cancelled' | 'unanswered') =>
    logger?.info('drain: ended', { event: 'drain_end', outcome, durationMs: Math.round(performance.now() - started) });
  if (await settlesWithin(answered(), timeoutMs, hurry)) return void ended('answered');
  if (hurry?.aborted) logger?.warn('drain: stop requested again after the client left: cancelling the calls still running');
  else logger?.warn(`drain: calls still running after ${timeoutMs / 1000} s (--drain-timeout): cancelling them`);
  cancel();
  const hurried = hurry?.aborted === true;
  let settled = await settlesWithin(answered(), hurried ? HURRIED_ANSWERS_MS : CANCELLED_ANSWERS_MS, hurried ? undefined : hurry);
  if (!settled && !hurried && hurry?.aborted) settled = await settlesWithin(answered(), HURRIED_ANSWERS_MS);
  if (settled) return void ended('cancelled');
  logger?.warn('drain: some cancelled calls did not answer; closing anyway');
  ended('unanswered');
}

/** True when `promise` settled within `ms` (false at once when `stop` aborts first). */
export async function settlesWithin(promise: Promise<unknown>, ms: number, stop?: AbortSignal): Promise<boolean> {
  if (stop?.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    onStop = () => resolve(false);
    stop?.addEventListener('abort', onStop, { once: true });
  });
  try {
    return await Promise.race([promise.then(() => true as const, () => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
    if (onStop) stop?.removeEventListener('abort', onStop);
  }
}
