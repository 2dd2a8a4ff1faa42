import { spawn } from 'node:child_process';

/** The baseline of the one-shot figures: `bash -c command` spawned straight from node, output drained. */
export function rawSpawn(command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}
