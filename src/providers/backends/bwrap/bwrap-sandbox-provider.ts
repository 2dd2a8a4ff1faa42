import path from 'node:path';
import { inject, injectable, optional } from 'inversify';
import { kernelSurfaceFlags, namespaceFlags } from './bwrap-kernel-surface.js';
import { socketMaskFlags, tempAndWorkspaceFlags } from './bwrap-mounts.js';
import { hiddenFileFlags, protectedPathFlags } from './bwrap-protected.js';
import { probeConfinement } from './bwrap-probe.js';
import { serverFiles } from '../../../core/server-files.js';
import { ProbeCache } from './probe-cache.js';
import { sizeInBytes } from './resource-limits.js';
import { preludeArgv, SECCOMP_FD } from './sandbox-prelude.js';
import { seccompFilterFile } from './seccomp-file.js';
import { resolveSandboxConfig, SandboxConfig } from './sandbox-config.js';
import type { ResolvedSandbox, SandboxProvider } from '../../policy/sandbox/sandbox-policy.js';

/** What a write to a read-only bind looks like in a confined command's stderr. */
const EROFS = /read-only file system/i;
/** What a refused mount looks like (util-linux `mount`/`umount` without CAP_SYS_ADMIN). */
const MOUNT_REFUSED = /\bu?mount(\[\d+\])?: .*(permission denied|must be superuser|operation not permitted)/i;

/**
 * Confines commands with bubblewrap: every capability dropped (also for a
 * root server: no remount can undo the binds), the host filesystem bound
 * read-only, `/tmp` the session's private temp dir (the host's temp roots
 * hidden), `/dev` a fresh read-only device tree (so `/dev/null` stays
 * writable and nothing else in it is), `/proc` of a private PID namespace;
 * `workspace-write` re-binds the workspace root writable, its protected
 * paths (`.git`, …) read-only over it; the server's own files (token,
 * config, audit log) are masked in every mode (bwrap-protected.ts). With the network
 * off, the host's sockets are masked too (see `socketMaskFlags`). The
 * kernel's surface is narrowed for every command: `/proc/sys` and kin
 * read-only, leak/control files masked, UTS/IPC/cgroup namespaces of its own
 * (bwrap-kernel-surface.ts), and a seccomp filter (seccomp-filter.ts) that a
 * host-side prelude opens for bwrap after joining the call's cgroups and
 * setting its rlimits (sandbox-prelude.ts).
 * `danger-full-access` is not confined: `wrap` returns the argv unchanged.
 *
 * Obligations: the wrapped command stays in the caller's process group (no
 * `--new-session`: the executor already gave it a session without a
 * controlling terminal, and its group kill must reach every member); the PID
 * namespace takes every descendant down when the command's shell exits, and
 * `--die-with-parent` when bwrap itself dies. `unavailableReason` probes with a
 * canary that proves the confinement (see `probeConfinement`); `ProbeCache`
 * keeps a success and asks a failure again.
 */
@injectable()
export class BwrapSandboxProvider implements SandboxProvider {
  /** `--unshare-pid`, always. */
  readonly pidNamespace = true;
  readonly name = 'bwrap';
  readonly config: SandboxConfig;
  private readonly probed = new ProbeCache(() => this.probe());

  constructor(@inject(SandboxConfig) @optional() config?: Partial<SandboxConfig>) {
    this.config = resolveSandboxConfig(config);
  }

  unavailableReason(): string | null {
    return this.probed.reason();
  }

  wrap(argv: readonly string[], sandbox: ResolvedSandbox): string[] {
    if (sandbox.mode === 'danger-full-access') return [...argv];
    const flags = this.isolationFlags();
    if (sandbox.mode === 'workspace-write') {
      const root = sandbox.workspaceRoot;
      if (typeof root !== 'string' || !path.isAbsolute(root)) {
        throw new Error(`sandbox workspace root must be an absolute path, got ${JSON.stringify(root)}`);
      }
    } else if (sandbox.mode !== 'read-only') {
      throw new Error(`unknown sandbox mode ${JSON.stringify(sandbox.mode)}`);
    }
    flags.push(...tempAndWorkspaceFlags(sandbox));
    if (sandbox.mode === 'workspace-write') flags.push(...protectedPathFlags(sandbox.workspaceRoot, this.config.protectedPaths));
    if (!this.config.network) flags.push(...socketMaskFlags());
    flags.push(...hiddenFileFlags(serverFiles(), sandbox.workspaceRoot));
    // After the write binds, so a workspace of `/` cannot shadow them with the host's /dev and /proc.
    flags.push('--dev', '/dev', '--remount-ro', '/dev', '--proc', '/proc', ...kernelSurfaceFlags());
    // Without --chdir, bwrap silently starts in $HOME when the caller's cwd is hidden inside (e.g. under the host /tmp).
    if (sandbox.cwd !== undefined) flags.push('--chdir', sandbox.cwd);
    flags.push('--seccomp', String(SECCOMP_FD));
    return this.withPrelude([this.config.bwrapPath, ...flags, '--', ...argv], sandbox);
  }

  isDenial(stderr: string): boolean {
    return EROFS.test(stderr) || MOUNT_REFUSED.test(stderr);
  }

  private isolationFlags(): string[] {
    const flags = ['--die-with-parent', '--unshare-pid', ...namespaceFlags(), '--cap-drop', 'ALL'];
    if (!this.config.network) flags.push('--unshare-net');
    flags.push('--ro-bind', '/', '/');
    return flags;
  }

  /** The host-side prelude: cgroups joined, rlimits set, the seccomp filter opened (sandbox-prelude.ts). */
  private withPrelude(argv: string[], sandbox: ResolvedSandbox): string[] {
    const { limits } = this.config;
    const covers = sandbox.cgroup?.covers ?? { processes: false, memory: false };
    // RLIMIT_NPROC counts every process of the user and the kernel never applies it to uid 0: only a fallback for other users.
    const nproc = !covers.processes && process.getuid?.() !== 0 ? { processes: limits.processes } : {};
    const data = covers.memory ? {} : { dataBytes: sizeInBytes(limits.memory)! };
    const options = {
      filterFile: seccompFilterFile(),
      cgroupProcs: sandbox.cgroup?.procsFiles ?? [],
      openFiles: limits.openFiles,
      ...(sandbox.termSparesWrapper === true ? { ignoreTerm: true } : {}),
    };
    return preludeArgv({ ...options, ...nproc, ...data }, argv);
  }

  private probe(): string | null {
    return probeConfinement(this.config.bwrapPath, (argv) => this.wrap(argv, { mode: 'read-only', workspaceRoot: '/' }));
  }
}
