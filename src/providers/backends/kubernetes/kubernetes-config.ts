import type { ServiceIdentifier } from 'inversify';
import { configError, mergeConfig } from '../../../core/config-merge.js';
import { describeValue } from '../../../core/describe-value.js';
import { checkProtectedPaths, DEFAULT_PROTECTED_PATHS } from '../../../core/protected-paths.js';
import { checkChannel, checkWarmPool, parseMount, type ChannelChoice } from '../../exec/engine/container-config.js';
import type { ContainerMount } from '../../exec/engine/container-engine.js';
import type { SeccompSetting } from './pod-seccomp.js';
import { checkNetworkPolicy, type NetworkPolicyConfig } from './network-policy-config.js';
import { checkLabels, checkResources, checkTolerations, checkWorkspace, type PodResources, type Toleration, type WorkspaceVolume } from './kubernetes-config-checks.js';

/** The `kubernetes:` section of a composition (docs/kubernetes.md). */
export interface KubernetesConfig {
  /** Image every session's pod runs. Required. */
  readonly image: string;
  /** Default: the kubeconfig context's namespace, else `default`. */
  readonly namespace?: string;
  /** Default: `$KUBECONFIG`, then `~/.kube/config`, then the in-cluster service account. */
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly env: Readonly<Record<string, string>>;
  /** hostPath volumes, `src:dst[:ro]` (absolute paths on the node). */
  readonly mounts: readonly string[];
  readonly resources: PodResources;
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Toleration[];
  readonly runtimeClassName?: string;
  /** Default none: the pod runs without an account token. */
  readonly serviceAccountName?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly podStartTimeoutMs: number;
  /** `hostPath` (default) or `{ claim, subPath }`. */
  readonly workspace: WorkspaceVolume;
  /** Numeric `uid[:gid]` the pod runs as (the exec API has no per-exec user). */
  readonly user?: string;
  /** How long this server's lease outlives its last renewal; its pods go with an expired lease. */
  readonly leaseSeconds: number;
  /** `true`: the default isolation (no ingress; egress to DNS and outside the cluster); `false`: no policy; or the egress rules. */
  readonly networkPolicy: boolean | { readonly egress?: unknown };
  /** Paths inside a writable workspace mounted read-only over it (docs/security.md#protected-paths). Default `.git`, `.envrc`, `.vscode`. */
  readonly protectedPaths: readonly string[];
  /** `auto` (default): the session profile, installed into this machine's kubelet; `runtime-default`; or `localhost:<path>` under the nodes' seccomp root. */
  readonly seccompProfile: SeccompSetting;
  /** Pods started ahead for sessions to come (docs/containers.md#warm-pool). Default 0. */
  readonly warmPool: number;
  /** One-shot calls start through one holder per pod, when the server shares the pod's node (docs/containers.md#one-channel-per-session); as `container.channel`. Default true. */
  readonly channel: ChannelChoice;
}

/** The config with every value checked; `mounts` parsed. */
export interface ResolvedKubernetesConfig extends Omit<KubernetesConfig, 'mounts' | 'networkPolicy'> {
  /** False: no NetworkPolicy; else the egress rules beside the ingress isolation (network-policy-config.ts). */
  readonly networkPolicy: NetworkPolicyConfig;
  readonly mounts: readonly ContainerMount[];
  /** The mounts as written (handed on to the container layer, which mounts the same paths). */
  readonly mountSpecs: readonly string[];
}

export const KubernetesConfigToken: ServiceIdentifier<ResolvedKubernetesConfig> = Symbol.for('dsh.KubernetesConfig');

export const DEFAULT_POD_START_TIMEOUT_MS = 60_000;
export const DEFAULT_LEASE_SECONDS = 30;
/** The same default as session containers (`container.memory`). */
export const DEFAULT_MEMORY_LIMIT = '4Gi';

const DEFAULTS = {
  env: {},
  mounts: [],
  resources: {},
  nodeSelector: {},
  tolerations: [],
  labels: {},
  annotations: {},
  podStartTimeoutMs: DEFAULT_POD_START_TIMEOUT_MS,
  workspace: 'hostPath',
  leaseSeconds: DEFAULT_LEASE_SECONDS,
  networkPolicy: true,
  protectedPaths: DEFAULT_PROTECTED_PATHS,
  seccompProfile: 'auto',
  warmPool: 0,
  channel: true,
};
const OPTIONAL = ['image', 'namespace', 'kubeconfig', 'context', 'runtimeClassName', 'serviceAccountName', 'user'];
/** Every key of the `kubernetes:` section (the composition file's JSON Schema lists the same). */
export const KUBERNETES_CONFIG_KEYS: readonly string[] = Object.freeze([...OPTIONAL, ...Object.keys(DEFAULTS)]);
const KNOWN = new Set(KUBERNETES_CONFIG_KEYS);
const LABEL = 'kubernetes';
/** DNS-1123 label: namespaces, service accounts, runtime classes, claims. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** `auto`, `runtime-default` or `localhost:<relative path>` (`..` is refused after this). */
const SECCOMP_SETTING = /^(auto|runtime-default|localhost:[A-Za-z0-9_.-][A-Za-z0-9_./-]*)$/;

/** Throws `invalid kubernetes config: <key> <reason>` for the first bad value. */
export function resolveKubernetesConfig(partial: unknown): ResolvedKubernetesConfig {
  const merged = mergeConfig(LABEL, DEFAULTS, partial, KNOWN);
  const fail = (key: string, problem: string): never => {
    throw configError(LABEL, key, `${problem}, got ${describeValue(merged[key])}`);
  };
  const optionalString = (key: string, pattern?: RegExp, what = 'a non-empty string'): string | undefined => {
    const value = merged[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '' || (pattern !== undefined && !pattern.test(value))) fail(key, `must be ${what}`);
    return value as string;
  };
  const image = optionalString('image');
  if (image === undefined) throw configError(LABEL, 'image', 'is required');
  const dnsName = 'a Kubernetes name (lowercase letters, digits and -)';
  const namespace = optionalString('namespace', DNS_LABEL, dnsName);
  const serviceAccountName = optionalString('serviceAccountName', DNS_LABEL, dnsName);
  const runtimeClassName = optionalString('runtimeClassName', DNS_LABEL, dnsName);
  const kubeconfig = optionalString('kubeconfig');
  const context = optionalString('context');
  const user = optionalString('user', /^\d+(:\d+)?$/, 'a numeric uid or uid:gid (the pod runs as it)');
  const seccompProfile = optionalString('seccompProfile', SECCOMP_SETTING, "auto, runtime-default or localhost:<path relative to the kubelet's seccomp directory, without ..>");
  if (seccompProfile?.split(/[:/]/).includes('..')) fail('seccompProfile', "must be auto, runtime-default or localhost:<path relative to the kubelet's seccomp directory, without ..>");
  const mapping = (key: string): Record<string, string> => {
    const value = merged[key];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(key, 'must be a mapping of names to strings');
    for (const [name, v] of Object.entries(value as object)) {
      if (typeof v !== 'string') throw configError(LABEL, `${key}.${name}`, `must be a string, got ${describeValue(v)}`);
    }
    return Object.freeze({ ...(value as Record<string, string>) });
  };
  const env = mapping('env');
  for (const name of Object.keys(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw configError(LABEL, `env.${name}`, 'is not a valid variable name');
  }
  if (!Array.isArray(merged.mounts) || !merged.mounts.every((m) => typeof m === 'string')) fail('mounts', 'must be a list of "src:dst[:ro]" strings');
  const mountSpecs = merged.mounts as string[];
  const mounts = mountSpecs.map((entry) => {
    let mount: ContainerMount;
    try {
      mount = parseMount(entry);
    } catch (error) {
      throw new Error((error as Error).message.replace('invalid container config', `invalid ${LABEL} config`));
    }
    // A hostPath volume takes no mount flags (docs/kubernetes.md#mount-flags).
    if (mount.noExec === true) throw configError(LABEL, 'mounts', `entry ${describeValue(entry)}: noexec is not available for a hostPath volume`);
    return mount;
  });
  const protectedPaths = checkProtectedPaths(merged.protectedPaths);
  if ('problem' in protectedPaths) throw configError(LABEL, 'protectedPaths', protectedPaths.problem);
  const labels = checkLabels(LABEL, 'labels', mapping('labels'));
  const nodeSelector = checkLabels(LABEL, 'nodeSelector', mapping('nodeSelector'), false);
  const annotations = mapping('annotations');
  const positive = (key: string): number => {
    const value = merged[key];
    if (!Number.isSafeInteger(value) || (value as number) <= 0) fail(key, 'must be a positive integer');
    return value as number;
  };
  return Object.freeze({
    image,
    env,
    mounts,
    mountSpecs: Object.freeze([...mountSpecs]),
    resources: checkResources(LABEL, merged.resources),
    nodeSelector,
    tolerations: checkTolerations(LABEL, merged.tolerations),
    labels,
    annotations,
    podStartTimeoutMs: positive('podStartTimeoutMs'),
    workspace: checkWorkspace(LABEL, merged.workspace, DNS_LABEL),
    leaseSeconds: positive('leaseSeconds'),
    networkPolicy: checkNetworkPolicy(LABEL, merged.networkPolicy),
    protectedPaths: protectedPaths.paths,
    seccompProfile: (seccompProfile ?? 'auto') as SeccompSetting,
    warmPool: checkWarmPool(merged.warmPool, fail),
    channel: checkChannel(merged.channel, fail),
    ...(namespace === undefined ? {} : { namespace }),
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    ...(context === undefined ? {} : { context }),
    ...(runtimeClassName === undefined ? {} : { runtimeClassName }),
    ...(serviceAccountName === undefined ? {} : { serviceAccountName }),
    ...(user === undefined ? {} : { user }),
  });
}
