import { createHash } from 'node:crypto';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ContainerSpec } from '../../exec/engine/container-engine.js';
import { sessionSeccompProfile } from '../../exec/engine/container-seccomp.js';

/** `securityContext.seccompProfile` of a session pod. */
export type PodSeccompProfile = { readonly type: 'RuntimeDefault' } | { readonly type: 'Localhost'; readonly localhostProfile: string };

/** Where a kubelet looks for `Localhost` profiles unless told otherwise. */
export const DEFAULT_KUBELET_SECCOMP_ROOT = '/var/lib/kubelet/seccomp';

/** The profile's name under the kubelet's seccomp root: versioned by its content, so servers of different versions never overwrite each other's. */
export function sessionProfileName(): string {
  return `dsh-tools/session-${createHash('sha256').update(sessionSeccompProfile()).digest('hex').slice(0, 12)}.json`;
}

/**
 * The seccomp directories of a kubelet running on this machine, or [] when
 * none runs here. `--seccomp-profile-root` when given; else the default
 * root and `<--root-dir>/seccomp` (kubelets up to 1.22 use the first, later
 * ones the second: writing both costs one small file).
 */
export function localKubeletSeccompRoots(proc = '/proc'): string[] {
  for (const entry of safeList(proc)) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = safeRead(path.join(proc, entry, 'cmdline')).split('\0');
    if (path.basename(argv[0] ?? '') !== 'kubelet') continue;
    const flag = (name: string): string | undefined => {
      const at = argv.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
      if (at < 0) return undefined;
      return argv[at]!.includes('=') ? argv[at]!.slice(name.length + 1) : argv[at + 1];
    };
    const explicit = flag('--seccomp-profile-root');
    if (explicit !== undefined) return [explicit];
    const rootDir = flag('--root-dir');
    const roots = [DEFAULT_KUBELET_SECCOMP_ROOT];
    if (rootDir !== undefined && path.join(rootDir, 'seccomp') !== DEFAULT_KUBELET_SECCOMP_ROOT) roots.push(path.join(rootDir, 'seccomp'));
    return roots;
  }
  return [];
}

/** Writes the session profile under each root (atomically, only when it differs); false when one cannot be written. */
function installSessionProfile(roots: readonly string[]): boolean {
  const profile = sessionSeccompProfile();
  const name = sessionProfileName();
  try {
    for (const root of roots) {
      const file = path.join(root, name);
      if (safeRead(file) === profile) continue;
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, profile, { mode: 0o644 });
      renameSync(temporary, file);
      accessSync(file, constants.R_OK);
    }
    return roots.length > 0;
  } catch {
    return false;
  }
}

/** True unless the pod is known to run as a uid other than 0 (no `user`: the image's, maybe root). */
function podRunsAsRoot(user: string | undefined): boolean {
  return user === undefined || Number(user.split(':')[0]) === 0;
}

/** What the pod's spec would let leave a root-owned file on a node: a writable mount. */
function hasWritableMount(spec: Pick<ContainerSpec, 'mounts'>): boolean {
  return spec.mounts.some((mount) => !mount.readOnly);
}

/** `kubernetes.seccompProfile`: see docs/kubernetes.md. */
export type SeccompSetting = 'auto' | 'runtime-default' | `localhost:${string}`;

/**
 * Chooses each session pod's profile. `auto` installs the session profile
 * (the container profile, which refuses set-id modes) into this machine's
 * kubelet once and uses it; where that cannot be done it refuses a root pod
 * with a writable mount rather than start one that could leave a setuid-root
 * file on the node, and lets any other pod run with the runtime's default.
 */
export class PodSeccompChooser {
  private installed?: boolean;

  constructor(
    private readonly setting: SeccompSetting,
    private readonly user: string | undefined,
    private readonly kubeletRoots: () => string[] = () => localKubeletSeccompRoots(),
  ) {}

  profileFor(spec: Pick<ContainerSpec, 'mounts'>): PodSeccompProfile {
    if (this.setting === 'runtime-default') return { type: 'RuntimeDefault' };
    if (this.setting.startsWith('localhost:')) return { type: 'Localhost', localhostProfile: this.setting.slice('localhost:'.length) };
    this.installed ??= installSessionProfile(this.kubeletRoots());
    if (this.installed) return { type: 'Localhost', localhostProfile: sessionProfileName() };
    if (podRunsAsRoot(this.user) && hasWritableMount(spec)) throw unprotectedRootPodError();
    return { type: 'RuntimeDefault' };
  }
}

/** The reason `auto` refuses a root pod it cannot protect; names every way out. */
function unprotectedRootPodError(): Error {
  return new Error(
    'kubernetes.seccompProfile is auto, but the session seccomp profile cannot be installed from here (no kubelet runs on this machine, or its seccomp directory is not writable) ' +
      'and the pod would run as root with a writable mount, where a setuid file it made would be root\'s on the node. ' +
      `Set kubernetes.user to an unprivileged uid, or install docs/kubernetes/session-seccomp.json on every node as ${DEFAULT_KUBELET_SECCOMP_ROOT}/dsh-tools/session.json ` +
      'and set kubernetes.seccompProfile: localhost:dsh-tools/session.json, or set kubernetes.seccompProfile: runtime-default to accept the risk',
  );
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
