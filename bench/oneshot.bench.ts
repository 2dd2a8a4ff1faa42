import { spawn } from 'node:child_process';
import { createHost, localEnvironment } from '../dist/index.js';
import { fmt, interleaved, type Figure } from './stats.js';

function rawSpawn(command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

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
