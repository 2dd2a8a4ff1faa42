// The waits a foreground command's end goes through (see shell-process.ts).

/**
 * After the leader exits, how long a background child may keep our pipes
 * open before the rest of the group is killed. Output already written is
 * never lost by the kill (the pipe is still drained to EOF); this only bounds
 * how long a leftover `sleep 1000 &` can hold the call open.
 */
export const LEFTOVER_DRAIN_MS = 100;
/**
 * After that kill, how long to wait for EOF before closing our ends anyway: a
 * descendant that left the group (its own setsid) could hold them forever.
 */
export const ESCAPED_HOLDER_MS = 1_000;
/**
 * At the timeout, how many 1 ms looks a runnable leader gets to finish its
 * exit (see `onTimeout`): on a loaded machine a runnable process can wait
 * tens of milliseconds for a CPU. Delays only the kill of a busy command.
 */
export const TIMEOUT_RECHECKS = 50;
/** Of those, how many a sleeping leader gets: it may be waiting on a last child that is exiting right now. */
export const SLEEPING_RECHECKS = 5;
