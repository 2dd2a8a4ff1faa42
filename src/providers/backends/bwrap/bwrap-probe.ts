import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** How long the availability probe may take before it counts as a failure. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Proves that `wrap` confines: runs a canary through it and accepts only
 * output that a working sandbox can print — the nonce echoed from inside,
 * PID, mount and UTS namespaces other than ours, `/proc/sys` refusing a
 * write, no effective capabilities, no-new-privileges set and a seccomp
 * filter in force (`Seccomp: 2`). A binary that exits 0 without running the command
 * (`/bin/true`) or runs it unconfined fails. Null when usable, else why not.
 */
export function probeConfinement(bwrapPath: string, wrap: (argv: string[]) => string[]): string | null {
  const nonce = randomBytes(12).toString('hex');
  const script =
    `echo ${nonce}; readlink /proc/self/ns/pid; readlink /proc/self/ns/mnt; readlink /proc/self/ns/uts; ` +
    // Opening for writing writes nothing: harmless even where the sysctl is writable (`true`: a failed redirection must not end sh).
    '{ true >/proc/sys/kernel/domainname; } 2>/dev/null && echo sys-writable || echo sys-read-only; ' +
    "grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status";
  // The wrapped argv starts with the host-side prelude, which would report a missing bwrap only as a failed exec.
  if (!isExecutable(bwrapPath)) return `${bwrapPath} was not found; install the bubblewrap package`;
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
  const [echoed, pidNs, mntNs, utsNs, sys, ...status] = lines;
  if (echoed !== nonce) return 'the canary did not run inside it';
  if (!pidNs || pidNs === ownNamespace('pid')) return 'no private PID namespace';
  if (!mntNs || mntNs === ownNamespace('mnt')) return 'no private mount namespace';
  if (!utsNs || utsNs === ownNamespace('uts')) return 'no private UTS namespace';
  if (sys !== 'sys-read-only') return '/proc/sys is writable';
  if (!status.includes('CapEff:\t0000000000000000')) return 'the command kept capabilities';
  if (!status.includes('NoNewPrivs:\t1')) return 'no-new-privileges is not set';
  if (!status.includes('Seccomp:\t2')) return 'no seccomp filter';
  return undefined;
}

/** `file` (a path, or a name looked up on PATH) names an executable file. */
function isExecutable(file: string): boolean {
  const candidates = file.includes('/') ? [file] : (process.env.PATH ?? '').split(':').filter(Boolean).map((dir) => path.join(dir, file));
  return candidates.some((candidate) => {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return fs.statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

function ownNamespace(kind: 'pid' | 'mnt' | 'uts'): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/ns/${kind}`);
  } catch {
    return undefined;
  }
}
