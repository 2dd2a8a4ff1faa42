import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createHost, localEnvironment } from '../dist/index.js';
import { descendants, leftovers, pssMb } from './process-table.js';
import { closeInheritedDescriptors, forgetStrayDescriptors } from '../dist/providers/exec/process/stray-descriptors.js';
import { costBetween, cpuTime, loadAverage, type Cost, type CpuTime } from './cpu-time.js';
import { fmt, median, percentile, timeOnce, type Figure } from './stats.js';

const SESSIONS = 20;
const CALLS = 100;
const PAYLOAD = 20_000;

function rawCall(command: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => resolve(bytes));
  });
}

/**
 * 100 concurrent calls spread over 20 sessions against 100 raw spawns of the
 * same command, alternating round by round; with and without pre-started
 * shells. Every call must bring its whole payload back (the figure fails
 * otherwise). Ratios are of medians: wall time, and CPU time (this process
 * plus the children it waited for), which varies far less on a loaded
 * machine. Each window runs until the next one starts, so work a burst
 * leaves behind (the pre-started shells started after it) is its own.
 */
export async function benchConcurrentCalls(runs: number): Promise<Figure[]> {
  // Descriptors this runner inherited (a terminal multiplexer's, a CI agent's) are closed, as the
  // CLI closes its own at start; DSH_BENCH_INHERITED=keep measures an embedder that holds them
  // (start the runner with e.g. `exec 251>/dev/null` before it).
  const held = process.env.DSH_BENCH_INHERITED === 'keep' ? inheritableCount() : 0;
  if (held === 0) closeInheritedDescriptors([]);
  forgetStrayDescriptors();
  const label = held === 0 ? '' : `, ${held} inherited descriptor${held === 1 ? '' : 's'} held`;
  return [...(await concurrentCalls(runs, true, label)), ...(await concurrentCalls(runs, false, label))];
}

/** Descriptors above 2 without close-on-exec, as stray-descriptors.ts finds them (the bench reads them the same way). */
function inheritableCount(): number {
  let count = 0;
  for (const name of readdirSync('/proc/self/fd')) {
    const fd = Number(name);
    if (fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'));
      if (flags !== null && (parseInt(flags[1]!, 8) & 0o2000000) === 0) count += 1;
    } catch {
      // The directory's own descriptor.
    }
  }
  return count;
}

async function concurrentCalls(runs: number, prestart: boolean, label: string): Promise<Figure[]> {
  const host = await createHost(...localEnvironment({ workspace: process.cwd(), executor: { prestart } }));
  const command = `head -c ${PAYLOAD} /dev/zero | tr '\\0' 'a'`;
  try {
    const sessions = Array.from({ length: SESSIONS }, () => host.openSession({ cwd: process.cwd() }));
    let lost = 0;
    const toolBurst = async (): Promise<void> => {
      const results = await Promise.all(
        Array.from({ length: CALLS }, (_, i) => sessions[i % SESSIONS]!.call('bash', { command, description: 'Print a payload' })),
      );
      for (const result of results) if (result.content[0]!.text.length !== PAYLOAD) lost += 1;
    };
    const rawBurst = async (): Promise<void> => {
      const bytes = await Promise.all(Array.from({ length: CALLS }, () => rawCall(command)));
      for (const count of bytes) if (count !== PAYLOAD) lost += 1;
    };
    await toolBurst();
    await rawBurst();
    const { tool, raw } = await alternate(runs, toolBurst, rawBurst);
    if (lost > 0) throw new Error(`${lost} of ${(runs + 1) * CALLS * 2} calls lost bytes`);
    const ratio = (pick: (cost: Cost) => number): number => median(tool.map(pick)) / median(raw.map(pick));
    const cpu = (cost: Cost): number => cost.self + cost.children;
    const p90 = (costs: Cost[], pick: (cost: Cost) => number): number => percentile(costs.map(pick), 90);
    return [
      {
        name: `${CALLS} concurrent calls / ${SESSIONS} sessions${prestart ? '' : ', prestart off'}${label}, CPU`,
        value: `${fmt(median(tool.map(cpu)))} (p90 ${fmt(p90(tool, cpu))}; server ${fmt(median(tool.map((c) => c.self)))}), 0 lost`,
        baseline: `raw spawns ${fmt(median(raw.map(cpu)))} (p90 ${fmt(p90(raw, cpu))}; node ${fmt(median(raw.map((c) => c.self)))})`,
        ratio: ratio(cpu),
        goal: prestart ? 'ratio ≤ 1.2, 0 lost bytes' : '(no pre-started shells: what they cost or save in a burst)',
      },
      {
        name: `… wall time, load ${loadAverage()}`,
        value: `${fmt(median(tool.map((c) => c.wall)))} (p90 ${fmt(p90(tool, (c) => c.wall))})`,
        baseline: `raw spawns ${fmt(median(raw.map((c) => c.wall)))} (p90 ${fmt(p90(raw, (c) => c.wall))})`,
        ratio: ratio((c) => c.wall),
        goal: prestart ? 'ratio ≤ 1.2' : '',
      },
    ];
  } finally {
    await host.dispose();
  }
}

/** `runs` rounds of raw, then tool; each window's CPU runs to the start of the next, after a pause for what it left behind. */
async function alternate(runs: number, toolBurst: () => Promise<void>, rawBurst: () => Promise<void>): Promise<{ tool: Cost[]; raw: Cost[] }> {
  const tool: Cost[] = [];
  const raw: Cost[] = [];
  const mark = (): { at: number; cpu: CpuTime } => ({ at: performance.now(), cpu: cpuTime() });
  const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));
  await pause();
  for (let r = 0; r < runs; r++) {
    for (const [burst, costs] of [
      [rawBurst, raw],
      [toolBurst, tool],
    ] as const) {
      const start = mark();
      await burst();
      const wall = performance.now() - start.at;
      await pause();
      costs.push(costBetween(start, mark(), wall));
    }
  }
  return { tool, raw };
}

/** 20 sessions × 10 background tasks: all admitted, their total memory, and disposal. */
export async function benchBackgroundTasks(): Promise<Figure[]> {
  const host = await createHost(...localEnvironment({ workspace: process.cwd() }));
  try {
    const sessions = Array.from({ length: SESSIONS }, () => host.openSession({ cwd: process.cwd() }));
    const started = await Promise.all(
      sessions.flatMap((session) =>
        Array.from({ length: 10 }, () =>
          session.call('bash', { command: 'sleep 600', description: 'Wait in the background', run_in_background: true }),
        ),
      ),
    );
    const ok = started.filter((result) => !result.isError).length;
    const pids = descendants();
    const childPss = pids.reduce((sum, pid) => sum + pssMb(pid), 0);
    const disposal = await timeOnce(() => host.dispose());
    const left = leftovers().length;
    return [
      {
        name: `background tasks across ${SESSIONS} sessions`,
        value: `${ok} running, children PSS ${childPss.toFixed(0)} MB`,
        goal: '200 admitted',
      },
      { name: `dispose ${ok} background tasks`, value: `${fmt(disposal)}, ${left} processes left`, goal: '0 left' },
    ];
  } finally {
    await host.dispose();
  }
}
