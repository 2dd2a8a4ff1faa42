import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, sandboxedEnvironment } from '../dist/index.js';
import { fmt, median, roundRobin, type Figure } from './stats.js';

/**
 * The baseline of the confined figures: the least a bwrap confinement costs,
 * `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid bash -c true`
 * spawned straight from node, output drained.
 */
function rawBwrap(): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent', 'bash', '-c', 'true'];
    const child = spawn('bwrap', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/**
 * A confined one-shot `true` (everything the sandbox adds: the host-side
 * limits step, the kernel-surface mounts, the seccomp filter, the namespace
 * reaper, a cgroup where the machine offers them) against a bare bwrap run,
 * in both confined modes, all in one round robin.
 */
export async function benchSandbox(runs: number): Promise<Figure[]> {
  const workspace = mkdtempSync(path.join(os.homedir(), '.dsh-bench-'));
  const readOnly = await createHost(...sandboxedEnvironment({ workspace, sandbox: { mode: 'read-only' } }));
  const writable = await createHost(...sandboxedEnvironment({ workspace, sandbox: { mode: 'workspace-write' } }));
  try {
    const ro = readOnly.openSession({ cwd: workspace });
    const rw = writable.openSession({ cwd: workspace });
    const args = { command: 'true', description: 'Do nothing' };
    const samples = await roundRobin(runs, [() => ro.call('bash', args), () => rw.call('bash', args), rawBwrap]);
    const [roMs, rwMs, rawMs] = samples.map(median);
    return [
      { name: 'confined one-shot `true`, read-only', value: fmt(roMs!), baseline: `bare bwrap ${fmt(rawMs!)}`, ratio: roMs! / rawMs!, goal: 'measured' },
      { name: 'confined one-shot `true`, workspace-write', value: fmt(rwMs!), baseline: `bare bwrap ${fmt(rawMs!)}`, ratio: rwMs! / rawMs!, goal: 'measured' },
    ];
  } finally {
    await readOnly.dispose();
    await writable.dispose();
    rmSync(workspace, { recursive: true, force: true });
  }
}
