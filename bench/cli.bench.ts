import { spawn } from 'node:child_process';
import { fmt, interleaved, type Figure } from './stats.js';

function node(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')} exited ${code}`))));
  });
}

/** `dsh-tools prompt` start-to-exit against a bare `node -e 0`. */
export async function benchCliPrompt(runs: number): Promise<Figure[]> {
  const r = await interleaved(runs, () => node(['dist/cli/main.js', 'prompt']), () => node(['-e', '0']), 2);
  return [{ name: 'dsh-tools prompt (process)', value: fmt(r.subject), baseline: `node -e 0 ${fmt(r.baseline)}`, ratio: r.ratio }];
}
