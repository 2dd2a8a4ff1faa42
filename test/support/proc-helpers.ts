export { isAlivePid, processesWith, uniqueSleep as uniqueSleepArg } from './process-table.js';

/** Waits (bounded) until `check` holds; returns its last value. Polls the process table, which has no events. */
export async function eventually<T>(probe: () => T, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let value = probe();
  while (!check(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = probe();
  }
  return value;
}
