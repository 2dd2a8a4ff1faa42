import { spawn } from 'node:child_process';
import { fmt, median, timeOnce, type Figure } from './stats.js';

/** Runs `node <args>` to its exit. */
function node(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')} exited ${code}`))));
  });
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dsh-bench', version: '0' } },
})}\n`;

/**
 * Spawns `dsh-tools serve` (stdio), sends `initialize` at once and resolves
 * when the response line arrives; the server is then stopped by closing its
 * stdin, outside the timed part.
 */
async function serveUntilInitialized(stopped: Promise<void>[]): Promise<void> {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve', '--workspace', process.cwd()], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  stopped.push(exited);
  child.stdin.write(INITIALIZE);
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (!seen.includes('\n')) return;
      if (!seen.includes('"serverInfo"')) reject(new Error(`unexpected reply: ${seen.slice(0, 200)}`));
      resolve();
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error('the server exited before answering initialize')));
  });
  child.stdin.end();
}

/** The value at fraction `q` (0-1) of the sorted samples (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function spread(values: number[]): string {
  return `${fmt(median(values))} (p10 ${fmt(quantile(values, 0.1))}, p90 ${fmt(quantile(values, 0.9))})`;
}

/**
 * Start-up: `dsh-tools prompt` to its exit and `dsh-tools serve` to its
 * `initialize` answer, each against a bare `node -e 0`, all three
 * interleaved in one run so machine load hits them alike.
 */
export async function benchStartup(runs: number, warmup = 2): Promise<Figure[]> {
  const stopped: Promise<void>[] = [];
  const subjects = {
    baseline: () => node(['-e', '0']),
    prompt: () => node(['dist/cli/main.js', 'prompt']),
    serve: () => serveUntilInitialized(stopped),
  };
  const samples = { baseline: [] as number[], prompt: [] as number[], serve: [] as number[] };
  for (let i = 0; i < warmup + runs; i++) {
    for (const [name, run] of Object.entries(subjects) as [keyof typeof subjects, () => Promise<void>][]) {
      const ms = await timeOnce(run);
      // Each server exits before the next process starts, so none runs during a timing.
      await Promise.all(stopped.splice(0));
      if (i >= warmup) samples[name].push(ms);
    }
  }
  const base = median(samples.baseline);
  const baseline = `node -e 0 ${spread(samples.baseline)}`;
  return [
    { name: 'dsh-tools prompt (process)', value: spread(samples.prompt), baseline, ratio: median(samples.prompt) / base, goal: '≤ 2×' },
    { name: 'dsh-tools serve → initialize answered (stdio)', value: spread(samples.serve), baseline, ratio: median(samples.serve) / base, goal: '≤ 2×' },
  ];
}
