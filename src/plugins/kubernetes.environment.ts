import path from 'node:path';
import type { PluginModule } from '../core/plugin-module.js';
import { DEFAULT_CAPABILITIES } from '../providers/exec/engine/container-hardening.js';
import { KubernetesEngine } from '../providers/backends/kubernetes/kubernetes-engine.js';
import { resolveKubernetesConfig, type KubernetesConfig } from '../providers/backends/kubernetes/kubernetes-config.js';
import type { SandboxMode } from '../core/sandbox-mode.js';
import { containerEnvironment } from './container.environment.js';
import type { EnvironmentOptions } from './local.environment.js';
import { checkOptionKeys, LOCAL_OPTION_KEYS } from './option-keys.js';

/** The local options plus the `kubernetes:` section. */
export interface KubernetesEnvironmentOptions extends EnvironmentOptions {
  readonly kubernetes: Partial<KubernetesConfig> & { readonly image: string };
  /** As in `containerEnvironment`: `mode: read-only` mounts the workspace read-only, otherwise read-write (the pod's network is the `networkPolicy`). */
  readonly sandbox?: { readonly mode?: SandboxMode };
  /** As in `containerEnvironment`: sessions' pods outlive this server (docs/shared-sessions.md#sandboxes). */
  readonly sharedSessions?: boolean;
}

/**
 * The container composition with every session in its own pod on a
 * Kubernetes cluster: the same executor, persistent shell and in-pod wrapper
 * as session containers, on `KubernetesEngine`. Bad config fails here.
 */
export function kubernetesEnvironment(options: KubernetesEnvironmentOptions): PluginModule[] {
  checkOptionKeys('kubernetesEnvironment', options, [...LOCAL_OPTION_KEYS, 'kubernetes', 'sandbox', 'sharedSessions'], { sandbox: ['mode'] });
  const { kubernetes, ...rest } = options;
  const config = resolveKubernetesConfig(kubernetes);
  const workspace = rest.workspace === undefined ? undefined : path.resolve(rest.workspace);
  const engine = new KubernetesEngine(config, workspace);
  return containerEnvironment({
    ...rest,
    ...(workspace === undefined ? {} : { workspace }),
    engine,
    // Limits, seccomp and placement are the pod's (the `kubernetes:` section); the rest is the container layer's.
    container: {
      image: config.image,
      env: config.env,
      mounts: config.mountSpecs,
      memory: 'unlimited',
      pidsLimit: 'unlimited',
      seccomp: 'engine-default',
      network: 'none',
      capabilities: DEFAULT_CAPABILITIES,
      protectedPaths: config.protectedPaths,
      warmPool: config.warmPool,
      // Used only when the pod proves it shares this host's session directory (docs/containers.md#one-channel-per-session).
      channel: config.channel,
      ...(config.user === undefined ? {} : { user: config.user }),
    },
  });
}
