/** Small timing helpers: medians of repeated runs, interleaved with their baseline. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function timeOnce(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs subject and baseline alternately so machine noise hits both alike. */
export async function interleaved(
  runs: number,
  subject: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
  warmup = 10,
): Promise<{ subject: number; baseline: number; ratio: number }> {
  for (let i = 0; i < warmup; i++) {
    await subject();
    await baseline();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(await timeOnce(subject));
    b.push(await timeOnce(baseline));
  }
  const subjectMedian = median(a);
  const baselineMedian = median(b);
  return { subject: subjectMedian, baseline: baselineMedian, ratio: subjectMedian / baselineMedian };
}

/** Samples this process's RSS while `fn` runs; returns the peak growth over the start. */
export async function peakRssGrowth<T>(fn: () => Promise<T>, everyMs = 10): Promise<{ value: T; growthMb: number }> {
  globalThis.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, growthMb: (peak - start) / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

export function fmt(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(2)} ms`;
}

export interface Figure {
  readonly name: string;
  readonly value: string;
  readonly baseline?: string;
  readonly ratio?: number;
  readonly goal?: string;
}

export function printFigures(figures: Figure[]): void {
  const rows = figures.map((f) => [f.name, f.value, f.baseline ?? '', f.ratio === undefined ? '' : f.ratio.toFixed(2), f.goal ?? '']);
  const header = ['figure', 'median / value', 'baseline (same run)', 'ratio', 'goal'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

/** The p-th percentile (0–100) by nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Median with p10/p90, e.g. `1.20 ms (p10 1.05, p90 1.61)`. */
export function spread(values: number[]): string {
  return `${fmt(median(values))} (p10 ${fmt(percentile(values, 10))}, p90 ${fmt(percentile(values, 90))})`;
}

/**
 * Runs each of `subjects` in turn, `runs` rounds, and returns every sample.
 * `settle` runs untimed after each sample, so work a subject leaves behind
 * (a shell pre-started for the next call) is not timed against the next one.
 */
export async function roundRobin(
  runs: number,
  subjects: Array<() => Promise<unknown>>,
  settle: () => Promise<unknown> = () => new Promise((resolve) => setTimeout(resolve, 3)),
  warmup = 10,
): Promise<number[][]> {
  const samples = subjects.map((): number[] => []);
  for (let i = 0; i < warmup + runs; i++) {
    for (const [index, subject] of subjects.entries()) {
      const ms = await timeOnce(subject);
      if (i >= warmup) samples[index]!.push(ms);
      await settle();
    }
  }
  return samples;
}
