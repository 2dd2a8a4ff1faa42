import { readdirSync, readFileSync } from 'node:fs';
import { createHost, LocalShellExecutor, localEnvironment } from '../dist/index.js';
import { fmt, interleaved, median, roundRobin, spread, type Figure } from './stats.js';
import { rawSpawn } from './raw-spawn.js';


/** One-shot `bash` tool call of `true` against a raw child_process.spawn of the same. */
export async function benchOneShot(runs: number): Promise<Figure[]> {
  const host = await createHost(...localEnvironment({ workspace: process.cwd() }));
  try {
    const session = host.openSession({ cwd: process.cwd() });
    const args = { command: 'true', description: 'Do nothing' };
    const r = await interleaved(runs, () => session.call('bash', args), () => rawSpawn('true'));
    return [
      {
        name: 'one-shot bash `true`',
        value: fmt(r.subject),
        baseline: `raw spawn ${fmt(r.baseline)}`,
        ratio: r.ratio,
        goal: 'ratio ≤ 1.10',
      },
    ];
  } finally {
    await host.dispose();
  }
}

/** About `mb` MB of live objects on the V8 heap (arrays of numbers; typed arrays would live outside it). */
function growHeap(mb: number): unknown[] {
  const kept: unknown[] = [];
  const perChunk = 1024;
  const chunks = Math.round((mb * 1024 * 1024) / (perChunk * 8 + 16));
  for (let i = 0; i < chunks; i++) kept.push(new Array<number>(perChunk).fill(i + 0.5));
  return kept;
}

/**
 * The pre-started path (a shell per session started ahead) against a raw
 * spawn and against the plain path (`executor.prestart: false`), all in one
 * round robin, at the process's own heap and with 50, 250 and 500 MB of
 * live objects added (a fork costs more as the heap grows; a hand-over should not).
 */
export async function benchPrestarted(runs: number): Promise<Figure[]> {
  const figures: Figure[] = [];
  const pre = await createHost(...localEnvironment({ workspace: process.cwd() }));
  const plain = await createHost(...localEnvironment({ workspace: process.cwd(), executor: { prestart: false } }));
  let ballast: unknown[] = [];
  try {
    const preSession = pre.openSession({ cwd: process.cwd() });
    const plainSession = plain.openSession({ cwd: process.cwd() });
    const args = { command: 'true', description: 'Do nothing' };
    for (const heapMb of [0, 50, 250, 500]) {
      ballast = [];
      globalThis.gc?.();
      ballast = growHeap(heapMb);
      globalThis.gc?.();
      const heapUsed = Math.round(process.memoryUsage().heapUsed / 1024 / 1024);
      const [preMs, rawMs, plainMs] = await roundRobin(runs, [
        () => preSession.call('bash', args),
        () => rawSpawn('true'),
        () => plainSession.call('bash', args),
      ]);
      const label = heapMb === 0 ? `heap ${heapUsed} MB` : `+${heapMb} MB live heap (heap ${heapUsed} MB)`;
      figures.push(
        {
          name: `one-shot \`true\` pre-started, ${label}`,
          value: spread(preMs!),
          baseline: `raw spawn ${spread(rawMs!)}`,
          ratio: median(preMs!) / median(rawMs!),
          goal: 'ratio ≤ 0.5, flat',
        },
        {
          name: `one-shot \`true\` plain path, ${label}`,
          value: spread(plainMs!),
          baseline: `pre-started ${fmt(median(preMs!))}`,
          ratio: median(preMs!) / median(plainMs!),
          goal: '(ratio: pre-started / plain)',
        },
      );
    }
    ballast = [];
    figures.push(await idleSessionMemory(pre));
  } finally {
    ballast.length = 0;
    await pre.dispose();
    await plain.dispose();
  }
  return figures;
}

/** The executor alone (no tool layer): where the time of a pre-started call goes. */
export async function benchExecutorPrestarted(runs: number): Promise<Figure[]> {
  const pre = new LocalShellExecutor({});
  const plain = new LocalShellExecutor({ prestart: false });
  try {
    const [preMs, rawMs, plainMs] = await roundRobin(runs, [
      () => pre.run(pre.checkRequest({ command: 'true' })),
      () => rawSpawn('true'),
      () => plain.run(plain.checkRequest({ command: 'true' })),
    ]);
    return [
      {
        name: 'executor.run `true` pre-started (no tool layer)',
        value: spread(preMs!),
        baseline: `raw spawn ${spread(rawMs!)}`,
        ratio: median(preMs!) / median(rawMs!),
      },
      {
        name: 'executor.run `true` plain path (no tool layer)',
        value: spread(plainMs!),
        baseline: `pre-started ${fmt(median(preMs!))}`,
        ratio: median(preMs!) / median(plainMs!),
        goal: '(ratio: pre-started / plain)',
      },
    ];
  } finally {
    await pre.dispose();
    await plain.dispose();
  }
}

/** Proportional set size of a process (its share of pages shared with others), in KiB. */
function pssKib(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** What one idle session with its pre-started shell costs: the shell's PSS, and the server's heap growth. */
async function idleSessionMemory(host: Awaited<ReturnType<typeof createHost>>): Promise<Figure> {
  const sessions = 20;
  const before = launcherPids();
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  for (let i = 0; i < sessions; i++) {
    await host.openSession({ cwd: process.cwd() }).call('bash', { command: 'true', description: 'Do nothing' });
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  globalThis.gc?.();
  const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / sessions / 1024;
  const added = launcherPids().filter((pid) => !before.includes(pid));
  const pss = added.map(pssKib);
  return {
    name: `memory per idle session with a pre-started shell (${added.length} of ${sessions})`,
    value: `shell PSS ${(median(pss) / 1024).toFixed(2)} MB`,
    baseline: `server heap +${heapGrowth.toFixed(0)} KiB/session`,
  };
}

function launcherPids(): number[] {
  const found: number[] = [];
  for (const entry of readdirSafe('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(': dsh-launcher;')) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
