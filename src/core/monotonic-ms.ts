/**
 * Milliseconds on a monotonic clock, for durations within this process (only
 * differences mean anything: the origin is arbitrary). `performance.now()`
 * measures the same, but its first use loads node's perf_hooks, about 1.5 ms
 * of a one-shot `dsh-tools call` (docs/performance.md, start-up).
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
