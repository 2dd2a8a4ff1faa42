import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fmt, median, timeOnce, type Figure } from './stats.js';

/** Runs `node <args>` to its exit. */
function node(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'ignore', env });
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

/** The module tree instead of the bundled CLI (src/cli/bundled-cli.ts), for the comparison row. */
const MODULE_TREE = { ...process.env, DSH_TOOLS_MODULE_TREE: '1' };

/** CPU time (user + system, ms) a running process has spent so far (Linux /proc, 10 ms ticks). */
function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /, '').split(' ');
    // Fields 14 and 15 of stat(5) (utime, stime); the slice starts at field 3.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Spawns `dsh-tools serve` (stdio), sends `initialize` at once and resolves
 * when the response line arrives, noting the server's CPU time at that
 * moment in `cpuAtAnswer`; the server is then stopped by closing its stdin,
 * outside the timed part.
 */
async function serveUntilInitialized(stopped: Promise<void>[], cpuAtAnswer: number[]): Promise<void> {
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
      const cpu = processCpuMs(child.pid);
      if (cpu !== undefined) cpuAtAnswer.push(cpu);
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
 * CPU time (user + system, ms) of the children this process has reaped so far
 * (Linux /proc, 10 ms ticks): less swayed by other work on the machine than wall time.
 */
function reapedChildrenCpuMs(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/stat', 'latin1').replace(/^.*\) /, '').split(' ');
    // Fields 16 and 17 of stat(5) (cutime, cstime); the slice starts at field 3.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

type Subject = 'baseline' | 'prompt' | 'call' | 'callTrue' | 'serve' | 'promptTree';

const CALL_TRUE = JSON.stringify({ command: 'true', description: 'Do nothing' });

/**
 * Start-up: `dsh-tools prompt` and `dsh-tools call` to their exit and
 * `dsh-tools serve` to its `initialize` answer, against a bare `node -e 0`,
 * all interleaved in one run so machine load hits them alike; wall time, and
 * CPU time for the processes timed to their exit. `prompt` from the module
 * tree (no bundle, no code cache) is the comparison row.
 */
export async function benchStartup(runs: number, warmup = 2): Promise<Figure[]> {
  const stopped: Promise<void>[] = [];
  const serveCpu: number[] = [];
  const subjects: Record<Subject, () => Promise<void>> = {
    baseline: () => node(['-e', '0']),
    prompt: () => node(['dist/cli/main.js', 'prompt']),
    call: () => node(['dist/cli/main.js', 'call', 'task_list', '{}']),
    callTrue: () => node(['dist/cli/main.js', 'call', 'bash', CALL_TRUE]),
    serve: () => serveUntilInitialized(stopped, serveCpu),
    promptTree: () => node(['dist/cli/main.js', 'prompt'], MODULE_TREE),
  };
  const wall = Object.fromEntries(Object.keys(subjects).map((name) => [name, [] as number[]])) as Record<Subject, number[]>;
  const cpu = Object.fromEntries(Object.keys(subjects).map((name) => [name, [] as number[]])) as Record<Subject, number[]>;
  const load: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    for (const [name, run] of Object.entries(subjects) as [Subject, () => Promise<void>][]) {
      const cpuBefore = reapedChildrenCpuMs();
      const ms = await timeOnce(run);
      // Each server exits before the next process starts, so none runs during a timing.
      await Promise.all(stopped.splice(0));
      const cpuAfter = reapedChildrenCpuMs();
      if (i < warmup) {
        if (name === 'serve') serveCpu.splice(0);
        continue;
      }
      wall[name].push(ms);
      if (cpuBefore !== undefined && cpuAfter !== undefined) cpu[name].push(cpuAfter - cpuBefore);
    }
    load.push(os.loadavg()[0]!);
  }
  const base = median(wall.baseline);
  const baseline = `node -e 0 ${spread(wall.baseline)}`;
  const figures: Figure[] = [
    { name: 'dsh-tools prompt (process)', value: spread(wall.prompt), baseline, ratio: median(wall.prompt) / base, goal: '≤ 2×' },
    { name: 'dsh-tools call task_list (process)', value: spread(wall.call), baseline, ratio: median(wall.call) / base, goal: '≤ 2×' },
    { name: 'dsh-tools call bash `true` (process)', value: spread(wall.callTrue), baseline, ratio: median(wall.callTrue) / base, goal: '≤ 2×' },
    { name: 'dsh-tools serve → initialize answered (stdio)', value: spread(wall.serve), baseline, ratio: median(wall.serve) / base, goal: '≤ 2×' },
    { name: 'dsh-tools prompt, module tree (no bundle)', value: spread(wall.promptTree), baseline, ratio: median(wall.promptTree) / base },
  ];
  if (cpu.baseline.length === runs) {
    const cpuBase = median(cpu.baseline);
    const cpuBaseline = `node -e 0 ${spread(cpu.baseline)}`;
    for (const [name, label] of [['prompt', 'prompt'], ['call', 'call task_list'], ['callTrue', 'call bash `true`'], ['promptTree', 'prompt, module tree']] as const) {
      figures.push({ name: `dsh-tools ${label}, CPU ms (user+sys)`, value: spread(cpu[name]), baseline: cpuBaseline, ratio: median(cpu[name]) / cpuBase });
    }
    if (serveCpu.length === runs) {
      figures.push({ name: 'dsh-tools serve, CPU ms until the initialize answer', value: spread(serveCpu), baseline: cpuBaseline, ratio: median(serveCpu) / cpuBase });
    }
  }
  figures.push({ name: 'load average (1 min) during these rounds', value: `${median(load).toFixed(1)} (max ${Math.max(...load).toFixed(1)})` });
  return figures;
}
