import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { inject, injectable, optional } from 'inversify';
import { resolveSandboxConfig, SandboxConfig } from './sandbox-config.js';
import type { ResolvedSandbox, SandboxProvider } from './sandbox-policy.js';

/** What a write to a read-only bind looks like in a confined command's stderr. */
const EROFS = /read-only file system/i;

/** How long the availability probe may take before it counts as a failure. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Confines commands with bubblewrap: the host filesystem is bound read-only,
 * `/dev` is a fresh read-only device tree (so `/dev/null` stays writable and
 * nothing else in it is), `/proc` belongs to a private PID namespace, and
 * `workspace-write` re-binds the workspace root and `/tmp` writable.
 * `danger-full-access` is not confined: `wrap` returns the argv unchanged.
 *
 * Obligations: the wrapped command stays in the caller's process group (no
 * `--new-session`: the executor already gave it a session without a
 * controlling terminal, and its group kill must reach every member); the PID
 * namespace takes every descendant down when the command's shell exits, and
 * `--die-with-parent` when bwrap itself dies. `unavailableReason` probes once
 * (a trial confinement with the same namespace flags) and caches the answer.
 */
@injectable()
export class BwrapSandboxProvider implements SandboxProvider {
  readonly name = 'bwrap';
  readonly config: SandboxConfig;
  private probed: { reason: string | null } | undefined;

  constructor(@inject(SandboxConfig) @optional() config?: Partial<SandboxConfig>) {
    this.config = resolveSandboxConfig(config);
  }

  unavailableReason(): string | null {
    this.probed ??= { reason: this.probe() };
    return this.probed.reason;
  }

  wrap(argv: readonly string[], sandbox: ResolvedSandbox): string[] {
    if (sandbox.mode === 'danger-full-access') return [...argv];
    const flags = this.isolationFlags();
    if (sandbox.mode === 'workspace-write') {
      const root = sandbox.workspaceRoot;
      if (typeof root !== 'string' || !path.isAbsolute(root)) {
        throw new Error(`sandbox workspace root must be an absolute path, got ${JSON.stringify(root)}`);
      }
      flags.push('--bind', '/tmp', '/tmp', '--bind', root, root);
    } else if (sandbox.mode !== 'read-only') {
      throw new Error(`unknown sandbox mode ${JSON.stringify(sandbox.mode)}`);
    }
    // After the write binds, so a workspace of `/` cannot shadow them with the host's /dev and /proc.
    flags.push('--dev', '/dev', '--remount-ro', '/dev', '--proc', '/proc');
    return [this.config.bwrapPath, ...flags, '--', ...argv];
  }

  isDenial(stderr: string): boolean {
    return EROFS.test(stderr);
  }

  private isolationFlags(): string[] {
    const flags = ['--die-with-parent', '--unshare-pid'];
    if (!this.config.network) flags.push('--unshare-net');
    flags.push('--ro-bind', '/', '/');
    return flags;
  }

  private probe(): string | null {
    const argv = this.wrap(['true'], { mode: 'read-only', workspaceRoot: '/' });
    const trial = spawnSync(argv[0]!, argv.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      timeout: PROBE_TIMEOUT_MS,
    });
    const code = (trial.error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT') return `${this.config.bwrapPath} was not found; install the bubblewrap package`;
    if (trial.error) return `${this.config.bwrapPath} could not be run (${trial.error.message})`;
    if (trial.status === 0) return null;
    const detail = trial.stderr.trim() || (trial.signal ? `killed by ${trial.signal}` : `exit code ${trial.status}`);
    return `${this.config.bwrapPath} cannot create a sandbox here (${detail}); enable unprivileged user namespaces or install bwrap setuid`;
  }
}
