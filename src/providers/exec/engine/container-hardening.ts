import { configError } from '../../../core/config-merge.js';
import { describeValue } from '../../../core/describe-value.js';

/**
 * What a session network routes to (`network: session` only):
 * `none` nothing outside the container; `host` the host's own services
 * (every host address) and nothing beyond; `internet` everything the
 * engine's default bridge reaches, the host's services included.
 */
export type Egress = 'none' | 'host' | 'internet';
const EGRESS_VALUES: readonly Egress[] = ['none', 'host', 'internet'];

/** `dsh`: the built-in profile (container-seccomp.ts); `engine-default`: the engine's own. */
export type SeccompChoice = 'dsh' | 'engine-default';
const SECCOMP_VALUES: readonly SeccompChoice[] = ['dsh', 'engine-default'];

/**
 * The capabilities a root shell workload keeps; every other one is dropped.
 * CHOWN: give files to other users (package managers, `tar` as root).
 * DAC_OVERRIDE: read and write files whatever their mode, as root expects.
 * FOWNER: chmod/utime files root does not own (`cp -p`, `tar -p`).
 * SETUID, SETGID: switch users (`su`, `runuser`, apt's sandbox user).
 * KILL: signal other users' processes (the tree kill runs as uid 0).
 */
export const DEFAULT_CAPABILITIES: readonly string[] = Object.freeze(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID', 'KILL']);
export const DEFAULT_PIDS_LIMIT = 1024;
export const DEFAULT_MEMORY = '4g';

/** Linux capability names (without `CAP_`), for checking the `capabilities` key. */
const KNOWN_CAPABILITIES = new Set(
  (
    'CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE NET_BIND_SERVICE ' +
    'NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT ' +
    'SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL ' +
    'SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE'
  ).split(' '),
);

const LABEL = 'container';

/** The hardening keys of the `container:` section, checked. */
export interface ResolvedHardening {
  readonly capabilities: readonly string[];
  readonly noNewPrivileges: boolean;
  readonly seccomp: SeccompChoice;
  readonly network: string;
  readonly egress: Egress;
}

/** Checks the hardening keys of a merged `container:` section; throws `invalid container config: …`. */
export function resolveHardening(merged: Record<string, unknown>): ResolvedHardening {
  const fail = (key: string, problem: string): never => {
    throw configError(LABEL, key, `${problem}, got ${describeValue(merged[key])}`);
  };
  const caps = merged.capabilities;
  if (!Array.isArray(caps)) fail('capabilities', 'must be a list of capability names (e.g. [CHOWN, KILL])');
  const capabilities = (caps as unknown[]).map((entry) => {
    const name = typeof entry === 'string' ? entry.trim().toUpperCase().replace(/^CAP_/, '') : '';
    if (!KNOWN_CAPABILITIES.has(name)) throw configError(LABEL, 'capabilities', `entry ${describeValue(entry)} is not a Linux capability name`);
    return name;
  });
  if (typeof merged.noNewPrivileges !== 'boolean') fail('noNewPrivileges', 'must be true or false');
  if (!SECCOMP_VALUES.includes(merged.seccomp as SeccompChoice)) fail('seccomp', `must be one of ${SECCOMP_VALUES.join(', ')}`);
  const network = merged.network;
  if (typeof network !== 'string' || network.trim() === '') fail('network', 'must be session, none or an engine network name');
  if (!EGRESS_VALUES.includes(merged.egress as Egress)) fail('egress', `must be one of ${EGRESS_VALUES.join(', ')}`);
  if (merged.egress !== 'none' && network !== 'session') fail('egress', 'applies only to network: session');
  return {
    capabilities: Object.freeze([...new Set(capabilities)]),
    noNewPrivileges: merged.noNewPrivileges as boolean,
    seccomp: merged.seccomp as SeccompChoice,
    network: network as string,
    egress: merged.egress as Egress,
  };
}

/** One line per default in force, for `doctor`. */
export function describeHardening(config: ResolvedHardening & { memoryBytes?: number; pidsLimit?: number }): string {
  const memory = config.memoryBytes === undefined ? 'no memory limit' : `memory ${Math.round(config.memoryBytes / 1024 ** 2)} MiB`;
  const pids = config.pidsLimit === undefined ? 'no pids limit' : `pids ${config.pidsLimit}`;
  const network =
    config.network === 'session' ? `a network per session (egress ${config.egress})` : config.network === 'none' ? 'no network' : `shared network "${config.network}"`;
  return [
    `capabilities ${config.capabilities.length === 0 ? 'none' : config.capabilities.join(',')}`,
    config.noNewPrivileges ? 'no-new-privileges' : 'new privileges allowed',
    `seccomp ${config.seccomp === 'dsh' ? 'dsh profile' : 'engine default'}`,
    pids,
    memory,
    network,
  ].join('; ');
}
