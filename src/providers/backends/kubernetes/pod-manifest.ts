import type { V1Pod, V1Volume, V1VolumeMount } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { ContainerSpec } from '../../exec/engine/container-engine.js';
import type { PodSeccompProfile } from './pod-seccomp.js';
import { DEFAULT_MEMORY_LIMIT, type ResolvedKubernetesConfig } from './kubernetes-config.js';

/** The one container of every session pod. */
export const CONTAINER_NAME = 'shell';

/**
 * The pod's main process: it reads a stdin nobody attaches to (`stdin`
 * without `stdinOnce` closing it), so it waits forever at no cost; the pod's
 * lifetime is the server's lease (see server-lease.ts), or, detached (a
 * shared session's), until it is deleted. The pause container
 * is PID 1 (`shareProcessNamespace`) and reaps orphans, like Docker's init.
 */
const MAIN = ['/bin/sh', '-c', 'while read -r _; do :; done; exit 0'];

/** What the pod needs besides the container spec. */
interface PodContext {
  readonly namespace: string;
  /** The composition's workspace: its mount becomes the claim when `workspace: { claim }`. */
  readonly workspace?: string;
  /** The server's lease: the pod is its dependent, so the garbage collector removes it with the lease (none: a detached pod). */
  readonly owner?: { readonly name: string; readonly uid: string };
  /** Default RuntimeDefault; the engine passes the session profile (pod-seccomp.ts), which refuses set-id modes. */
  readonly seccompProfile?: PodSeccompProfile;
}

/** A label value Kubernetes accepts: at most 63 of `[A-Za-z0-9_.-]`, alphanumeric at both ends. */
export function labelValue(value: string): string {
  return value.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

/** A pod name (DNS-1123 subdomain) from the container name the session layer chose. */
export function podName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/-+/g, '-').slice(0, 63).replace(/^-+|-+$/g, '') || 'dsh-session';
}

/** The session pod for `spec`: hardened like a session container, placed and limited by the `kubernetes:` section. */
export function podManifest(spec: ContainerSpec, config: ResolvedKubernetesConfig, context: PodContext): V1Pod {
  const labels: Record<string, string> = { ...config.labels };
  for (const [key, value] of Object.entries(spec.labels)) labels[key] = labelValue(value);
  const { volumes, mounts } = podVolumes(spec, config, context.workspace);
  const [uid, gid] = config.user?.split(':').map(Number) ?? [];
  const seccompProfile = { ...(context.seccompProfile ?? { type: 'RuntimeDefault' }) };
  const limits: Record<string, string> = { memory: DEFAULT_MEMORY_LIMIT, ...config.resources.limits };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(spec.name),
      namespace: context.namespace,
      labels,
      // The label values are shortened to fit; the annotations keep them whole.
      annotations: { ...config.annotations, ...spec.labels },
      ...(context.owner === undefined
        ? {}
        : {
            ownerReferences: [
              { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: context.owner.name, uid: context.owner.uid, blockOwnerDeletion: false, controller: false },
            ],
          }),
    },
    spec: {
      restartPolicy: 'Never',
      shareProcessNamespace: true,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: config.serviceAccountName !== undefined,
      ...(config.serviceAccountName === undefined ? {} : { serviceAccountName: config.serviceAccountName }),
      ...(config.runtimeClassName === undefined ? {} : { runtimeClassName: config.runtimeClassName }),
      ...(Object.keys(config.nodeSelector).length === 0 ? {} : { nodeSelector: { ...config.nodeSelector } }),
      ...(config.tolerations.length === 0 ? {} : { tolerations: config.tolerations.map((t) => ({ ...t })) }),
      securityContext: {
        seccompProfile,
        ...(uid === undefined ? {} : { runAsUser: uid, runAsGroup: gid ?? uid }),
      },
      volumes,
      containers: [
        {
          name: CONTAINER_NAME,
          image: spec.image,
          imagePullPolicy: 'IfNotPresent',
          command: MAIN,
          stdin: true,
          workingDir: '/',
          env: Object.entries(spec.env).map(([name, value]) => ({ name, value })),
          volumeMounts: mounts,
          resources: { limits, ...(config.resources.requests === undefined ? {} : { requests: { ...config.resources.requests } }) },
          securityContext: {
            capabilities: { drop: ['ALL'], add: [...spec.capabilities] },
            allowPrivilegeEscalation: !spec.noNewPrivileges,
            privileged: false,
            readOnlyRootFilesystem: spec.readOnlyRootfs,
            seccompProfile: { ...seccompProfile },
          },
        },
      ],
    },
  };
}

/**
 * Every mount a hostPath at the same path, except the workspace and what lies
 * below it (protected paths, masks) when it lives on a claim. A mount the
 * session layer looked at gets the hostPath type it saw (`Directory`,
 * `File`), so the kubelet fails the pod rather than create a missing one.
 * A hostPath takes no mount flags: what stands in for nosuid and nodev is the
 * container's securityContext (docs/kubernetes.md#mount-flags).
 */
function podVolumes(spec: ContainerSpec, config: ResolvedKubernetesConfig, workspace: string | undefined): { volumes: V1Volume[]; mounts: V1VolumeMount[] } {
  const volumes: V1Volume[] = [];
  const mounts: V1VolumeMount[] = [];
  spec.mounts.forEach((mount, index) => {
    const name = `m${index}`;
    const claim = config.workspace !== 'hostPath' && workspace !== undefined ? config.workspace : undefined;
    // Only what comes from the workspace itself is on the claim (a mask's empty source is not).
    const fromWorkspace = workspace !== undefined && (mount.source === mount.target || relativeBelow(mount.source, workspace) !== undefined);
    const below = workspace === undefined || !fromWorkspace ? undefined : relativeBelow(mount.target, workspace);
    if (claim !== undefined && below !== undefined) {
      const subPath = [claim.subPath, below].filter((part) => part !== undefined && part !== '').join('/');
      volumes.push({ name, persistentVolumeClaim: { claimName: claim.claim, readOnly: mount.readOnly } });
      mounts.push({ name, mountPath: mount.target, readOnly: mount.readOnly, ...(subPath === '' ? {} : { subPath }) });
    } else {
      const type = mount.kind === undefined ? {} : { type: mount.kind === 'directory' ? 'Directory' : 'File' };
      volumes.push({ name, hostPath: { path: mount.source, ...type } });
      mounts.push({ name, mountPath: mount.target, readOnly: mount.readOnly });
    }
  });
  return { volumes, mounts };
}

/** `target` relative to `workspace` ('' for the workspace itself), or undefined when it lies outside. */
function relativeBelow(target: string, workspace: string): string | undefined {
  if (target === workspace) return '';
  return target.startsWith(`${workspace}/`) ? target.slice(workspace.length + 1) : undefined;
}
