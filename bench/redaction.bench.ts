import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment, type DshHost } from '../dist/index.js';
import { fmt, median, timeOnce, type Figure } from './stats.js';

const BYTES = 200 * 1000 * 1000;
const LINE = 'src/providers/exec/shell/output-capture.ts:123:45 - warning: value 42 is never read (no-unused-vars)';
const COMMAND = `yes '${LINE}' | head -c ${BYTES}`;
const SECRETS = Array.from({ length: 50 }, (_, i) => `bench-secret-${i}-${'q7Zk'.repeat(6)}`);

function drainToFile(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${COMMAND} > ${file}`], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/**
 * The cost of the output filters on 200 MB of compiler-style lines, each
 * composition in the same run, interleaved with the same bytes drained to a
 * file: redaction off (collapse only), the default (built-in patterns, no
 * secrets), and 50 configured secrets on top of the built-ins.
 */
export async function benchRedaction(runs: number): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-redact-'));
  const executor = { maxSpillBytes: 256 * 1024 * 1024 };
  const hosts: Array<[string, DshHost]> = [
    ['off', await createHost(...localEnvironment({ workspace: dir, executor, redact: { builtins: false, environment: false } }))],
    ['default', await createHost(...localEnvironment({ workspace: dir, executor }))],
    ['50 secrets', await createHost(...localEnvironment({ workspace: dir, executor, redact: { values: SECRETS } }))],
  ];
  try {
    const times = new Map<string, number[]>(hosts.map(([name]) => [name, []]));
    // CPU of this process per call: steadier than wall time on a shared machine.
    const cpu = new Map<string, number[]>(hosts.map(([name]) => [name, []]));
    const raw: number[] = [];
    const args = { command: COMMAND, description: 'Print 200 MB of lines' };
    for (let i = 0; i < runs; i++) {
      raw.push(await timeOnce(() => drainToFile(path.join(dir, 'raw.out'))));
      for (const [name, host] of hosts) {
        const before = process.cpuUsage();
        times.get(name)!.push(await timeOnce(() => host.call('bash', args)));
        const used = process.cpuUsage(before);
        cpu.get(name)!.push((used.user + used.system) / 1000);
      }
    }
    const base = median(raw);
    const off = median(times.get('off')!);
    const figure = (name: string, label: string, goal: string): Figure => {
      const value = median(times.get(name)!);
      return { name: label, value: fmt(value), baseline: `drain to file ${fmt(base)}`, ratio: value / base, goal };
    };
    const defaults = median(times.get('default')!);
    const cpuOf = (name: string): number => median(cpu.get(name)!);
    return [
      figure('off', '200 MB lines, redaction off', 'reference'),
      figure('default', '200 MB lines, built-ins, no secrets', 'ratio ≤ 1.3'),
      { name: 'built-ins, no secrets vs redaction off', value: fmt(defaults), baseline: `off ${fmt(off)}`, ratio: defaults / off, goal: '≈ 1.0' },
      figure('50 secrets', '200 MB lines, 50 secrets + built-ins', 'ratio ≤ 1.3'),
      ...hosts.map(([name]) => ({
        name: `200 MB lines, host CPU, ${name}`,
        value: fmt(cpuOf(name)),
        baseline: `off ${fmt(cpuOf('off'))}`,
        ratio: cpuOf(name) / cpuOf('off'),
      })),
    ];
  } finally {
    await Promise.all(hosts.map(([, host]) => host.dispose()));
    rmSync(dir, { recursive: true, force: true });
  }
}
