import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment } from '../dist/index.js';
import { fmt, median, peakRssGrowth, percentile, spread, timeOnce, type Figure } from './stats.js';

const BYTES = 200 * 1000 * 1000;

function drainToFile(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `head -c ${BYTES} /dev/zero | tr '\\0' 'x' > ${file}`], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/** What a Node program at least pays for the same output: spawn, read the pipe, write the bytes to a file. */
function nodeDrainToFile(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `head -c ${BYTES} /dev/zero | tr '\\0' 'x'`], { stdio: ['ignore', 'pipe', 'ignore'] });
    const out = createWriteStream(file);
    child.on('error', reject);
    out.on('error', reject);
    child.stdout.pipe(out);
    out.on('close', () => resolve());
  });
}

/** 200 MB of output through the tool: wall time against the same bytes drained to a file, and peak RSS growth. */
export async function benchOutput(runs: number): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-'));
  const host = await createHost(...localEnvironment({ workspace: dir, executor: { maxSpillBytes: 256 * 1024 * 1024 } }));
  try {
    const session = host.openSession({ cwd: dir });
    const args = { command: `head -c ${BYTES} /dev/zero | tr '\\0' 'x'`, description: 'Print 200 MB' };
    const tool: number[] = [];
    const raw: number[] = [];
    const drained: number[] = [];
    let peak = 0;
    for (let i = 0; i < runs; i++) {
      raw.push(await timeOnce(() => drainToFile(path.join(dir, 'raw.out'))));
      drained.push(await timeOnce(() => nodeDrainToFile(path.join(dir, 'node.out'))));
      const measured = await peakRssGrowth(() => timeOnce(() => session.call('bash', args)));
      tool.push(measured.value);
      peak = Math.max(peak, measured.growthMb);
    }
    return [
      {
        name: '200 MB output through bash',
        value: fmt(median(tool)),
        baseline: `drain to file ${fmt(median(raw))}`,
        ratio: median(tool) / median(raw),
        goal: 'ratio ≤ 1.3',
      },
      {
        name: '200 MB output through bash, against Node',
        value: spread(tool),
        baseline: `Node drain to file ${spread(drained)}`,
        ratio: median(tool) / median(drained),
        goal: `ratio ≤ 1.15 (p90 ratio ${(percentile(tool, 90) / percentile(drained, 90)).toFixed(2)})`,
      },
      { name: '200 MB output: peak RSS growth', value: `${peak.toFixed(1)} MB`, goal: '≤ 64 MB' },
    ];
  } finally {
    await host.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
