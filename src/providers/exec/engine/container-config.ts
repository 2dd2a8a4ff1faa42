import path from 'node:path';
import type { ServiceIdentifier } from 'inversify';
import { configError, mergeConfig } from '../../../core/config-merge.js';
import { describeValue } from '../../../core/describe-value.js';
import { checkProtectedPaths, DEFAULT_PROTECTED_PATHS } from '../../../core/protected-paths.js';
import type { ContainerMount, ContainerSpec } from './container-engine.js';
import {
  DEFAULT_CAPABILITIES,
  DEFAULT_MEMORY,
  DEFAULT_PIDS_LIMIT,
  resolveHardening,
  type Egress,
  type ResolvedHardening,
  type SeccompChoice,
} from './container-hardening.js';

/** The `container:` section of a composition (docs/configuration.md). */
export interface ContainerConfig {
  /** Image every session's container runs. Required. */
  readonly image: string;
  /** Engine endpoint; default `DOCKER_HOST`, else the local socket. */
  readonly host?: string;
  /** Extra binds, `src:dst[:ro|rw|ro,noexec]` (absolute paths). */
  readonly mounts: readonly string[];
  /** `session` (default: a network of its own per session), `none`, or an engine network name (shared by every session). */
  readonly network: string;
  /** What a session network routes to: `none` (default), `host`, `internet`. */
  readonly egress: Egress;
  /** Memory limit: bytes, a number with a `k`, `m` or `g` suffix, or `unlimited`. Default `4g`. */
  readonly memory: string | number;
  /** CPU limit in CPUs (fractions allowed). */
  readonly cpus?: number;
  /** Processes and threads in the container, or `unlimited`. Default 1024. */
  readonly pidsLimit: number | 'unlimited';
  /** Capabilities the container keeps (every other one is dropped). Default CHOWN, DAC_OVERRIDE, FOWNER, SETUID, SETGID, KILL. */
  readonly capabilities: readonly string[];
  /** Setuid bits and file capabilities grant nothing inside the container. Default true. */
  readonly noNewPrivileges: boolean;
  /** `dsh` (default: refuses setuid/setgid modes, namespaces, mounts, …) or `engine-default`. */
  readonly seccomp: SeccompChoice;
  /** User the commands run as (`uid[:gid]` or a name the image knows). */
  readonly user?: string;
  readonly readOnlyRootfs: boolean;
  /** Fixed variables of every container. */
  readonly env: Readonly<Record<string, string>>;
  /** Paths inside a writable workspace mounted read-only over it (docs/security.md#protected-paths). Default `.git`, `.envrc`, `.vscode`. */
  readonly protectedPaths: readonly string[];
  /** Containers started ahead for sessions to come (docs/containers.md#warm-pool). Default 0. */
  readonly warmPool: number;
  /**
   * One-shot calls start through one long-lived holder per container, not an engine exec each
   * (docs/containers.md#one-channel-per-session): `true` (the default) with the native call helper where
   * the container can run it, `'bash'` with the holder's bash alone, `false` for an engine exec per call.
   */
  readonly channel: ChannelChoice;
}

/** The config with every value checked and converted for the engine. */
export interface ResolvedContainerConfig extends Omit<ContainerSpec, 'name' | 'labels' | 'network' | 'seccompProfile'>, ResolvedHardening {
  /** The engine's endpoint; undefined: `DOCKER_HOST`, else the local socket. */
  readonly host?: string;
  readonly protectedPaths: readonly string[];
  readonly warmPool: number;
  readonly channel: ChannelChoice;
}

/** `channel` of the `container:` and `kubernetes:` sections. */
export type ChannelChoice = boolean | 'bash';

/** The most containers a warm pool may hold: each is a running container nobody uses yet. */
const MAX_WARM_POOL = 32;

/** `warmPool` of the `container:` and `kubernetes:` sections: 0 to MAX_WARM_POOL (docs/containers.md#warm-pool). */
export function checkWarmPool(value: unknown, fail: (key: string, problem: string) => never): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > MAX_WARM_POOL) fail('warmPool', `must be an integer from 0 to ${MAX_WARM_POOL}`);
  return value as number;
}

/** `channel` of the `container:` and `kubernetes:` sections (docs/containers.md#one-channel-per-session). */
export function checkChannel(value: unknown, fail: (key: string, problem: string) => never): ChannelChoice {
  if (typeof value !== 'boolean' && value !== 'bash') fail('channel', 'must be true, false or "bash"');
  return value as ChannelChoice;
}

export const ContainerConfig: ServiceIdentifier<ResolvedContainerConfig> = Symbol.for('dsh.ContainerConfig');

const DEFAULTS = {
  mounts: [],
  readOnlyRootfs: false,
  env: {},
  network: 'session',
  egress: 'none',
  memory: DEFAULT_MEMORY,
  pidsLimit: DEFAULT_PIDS_LIMIT,
  capabilities: DEFAULT_CAPABILITIES,
  noNewPrivileges: true,
  seccomp: 'dsh',
  protectedPaths: DEFAULT_PROTECTED_PATHS,
  warmPool: 0,
  channel: true,
};
/** Every key of the `container:` section (the composition file's JSON Schema lists the same). */
export const CONTAINER_CONFIG_KEYS: readonly string[] = Object.freeze([...new Set(['image', 'host', 'cpus', 'user', ...Object.keys(DEFAULTS)])]);
const KNOWN = new Set(CONTAINER_CONFIG_KEYS);
/** Turns the memory or pids limit off. */
const UNLIMITED = 'unlimited';
const LABEL = 'container';

/** Throws `invalid container config: <key> <reason>` for the first bad value. */
export function resolveContainerConfig(partial: unknown): ResolvedContainerConfig {
  const merged = mergeConfig(LABEL, DEFAULTS, partial, KNOWN);
  const fail = (key: string, problem: string): never => {
    throw configError(LABEL, key, `${problem}, got ${describeValue(merged[key])}`);
  };
  const optionalString = (key: string): string | undefined => {
    const value = merged[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '') fail(key, 'must be a non-empty string');
    return value as string;
  };
  const image = optionalString('image');
  if (image === undefined) throw configError(LABEL, 'image', 'is required');
  if (!Array.isArray(merged.mounts)) fail('mounts', 'must be a list of "src:dst[:ro]" strings');
  const mounts = (merged.mounts as unknown[]).map((entry) => parseMount(entry));
  const env = merged.env;
  if (env === null || typeof env !== 'object' || Array.isArray(env)) fail('env', 'must be a mapping of names to strings');
  for (const [name, value] of Object.entries(env as object)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw configError(LABEL, `env.${name}`, 'is not a valid variable name');
    if (typeof value !== 'string') throw configError(LABEL, `env.${name}`, `must be a string, got ${describeValue(value)}`);
  }
  if (typeof merged.readOnlyRootfs !== 'boolean') fail('readOnlyRootfs', 'must be true or false');
  const cpus = merged.cpus;
  if (cpus !== undefined && !(typeof cpus === 'number' && Number.isFinite(cpus) && cpus > 0)) fail('cpus', 'must be a positive number');
  const pids = merged.pidsLimit;
  if (pids !== UNLIMITED && !(Number.isSafeInteger(pids) && (pids as number) > 0)) fail('pidsLimit', 'must be a positive integer or "unlimited"');
  const memoryBytes = merged.memory === UNLIMITED ? undefined : parseMemory(merged.memory);
  if (memoryBytes === null) fail('memory', 'must be a byte count, a number with k, m or g (at least 6m), or "unlimited"');
  const hardening = resolveHardening(merged);
  const protectedPaths = checkProtectedPaths(merged.protectedPaths);
  if ('problem' in protectedPaths) throw configError(LABEL, 'protectedPaths', protectedPaths.problem);
  const host = optionalString('host');
  const user = optionalString('user');
  const warmPool = checkWarmPool(merged.warmPool, fail);
  return Object.freeze({
    image,
    mounts,
    readOnlyRootfs: merged.readOnlyRootfs as boolean,
    env: Object.freeze({ ...(env as Record<string, string>) }),
    ...hardening,
    protectedPaths: protectedPaths.paths,
    warmPool,
    channel: checkChannel(merged.channel, fail),
    ...(host === undefined ? {} : { host }),
    ...(user === undefined ? {} : { user }),
    ...(memoryBytes == null ? {} : { memoryBytes }),
    ...(cpus === undefined ? {} : { nanoCpus: Math.round((cpus as number) * 1e9) }),
    ...(pids === UNLIMITED ? {} : { pidsLimit: pids as number }),
  });
}

/** `src:dst[:ro|rw|ro,noexec]` with absolute paths. */
export function parseMount(entry: unknown): ContainerMount {
  const bad = (why: string): never => {
    throw configError(LABEL, 'mounts', `entry ${describeValue(entry)} ${why}`);
  };
  if (typeof entry !== 'string') return bad('must be a "src:dst[:ro]" string');
  const parts = entry.split(':');
  if (parts.length < 2 || parts.length > 3) return bad('must look like src:dst or src:dst:ro');
  const [source, target, flag] = parts as [string, string, string | undefined];
  if (!path.isAbsolute(source) || !path.isAbsolute(target)) bad('needs absolute source and target paths');
  if (flag !== undefined && flag !== 'ro' && flag !== 'rw' && flag !== 'ro,noexec') bad('may only end in :ro, :rw or :ro,noexec');
  return { source, target, readOnly: flag === 'ro' || flag === 'ro,noexec', ...(flag === 'ro,noexec' ? { noExec: true } : {}) };
}

/** Bytes, or null for a bad value. The engine refuses limits under 6 MiB. */
function parseMemory(value: unknown): number | null {
  let bytes: number;
  if (typeof value === 'number') bytes = value;
  else if (typeof value === 'string') {
    const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)b?$/i.exec(value.trim());
    if (!match) return null;
    const scale = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
    bytes = Math.round(Number(match[1]) * scale);
  } else return null;
  return Number.isSafeInteger(bytes) && bytes >= 6 * 1024 * 1024 ? bytes : null;
}
