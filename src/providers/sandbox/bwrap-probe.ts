import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

/** How long the availability probe may take before it counts as a failure. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Proves that `wrap` confines: runs a canary through it and accepts only
 * output that a working sandbox can print — the nonce echoed from inside,
 * PID and mount namespaces other than ours, no effective capabilities and
 * no-new-privileges set. A binary that exits 0 without running the command
 * (`/bin/true`) or runs it unconfined fails. Null when usable, else why not.
 */
export function probeConfinement(bwrapPath: string, wrap: (argv: string[]) => string[]): string | null {
  const nonce = randomBytes(12).toString('hex');
  const script =
    `echo ${nonce}; readlink /proc/self/ns/pid; readlink /proc/self/ns/mnt; ` +
    "grep -E '^(CapEff|NoNewPrivs):' /proc/self/status";
  const argv = wrap(['/bin/sh', '-c', script]);
  const trial = spawnSync(argv[0]!, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: PROBE_TIMEOUT_MS,
  });
  const code = (trial.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return `${bwrapPath} was not found; install the bubblewrap package`;
  if (trial.error) return `${bwrapPath} could not be run (${trial.error.message})`;
  if (trial.status !== 0) {
    const detail = trial.stderr.trim() || (trial.signal ? `killed by ${trial.signal}` : `exit code ${trial.status}`);
    return `${bwrapPath} cannot create a sandbox here (${detail}); enable unprivileged user namespaces or install bwrap setuid`;
  }
  const missing = missingEvidence(trial.stdout.split('\n'), nonce);
  return missing === undefined ? null : `${bwrapPath} did not confine a trial command (${missing})`;
}

function missingEvidence(lines: string[], nonce: string): string | undefined {
  const [echoed, pidNs, mntNs, ...status] = lines;
  if (echoed !== nonce) return 'the canary did not run inside it';
  if (!pidNs || pidNs === ownNamespace('pid')) return 'no private PID namespace';
  if (!mntNs || mntNs === ownNamespace('mnt')) return 'no private mount namespace';
  if (!status.includes('CapEff:\t0000000000000000')) return 'the command kept capabilities';
  if (!status.includes('NoNewPrivs:\t1')) return 'no-new-privileges is not set';
  return undefined;
}

function ownNamespace(kind: 'pid' | 'mnt'): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/ns/${kind}`);
  } catch {
    return undefined;
  }
}
