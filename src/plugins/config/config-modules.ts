import type { PluginModule } from '../../core/plugin-module.js';
import { lazyModule } from '../../core/lazy-module.js';
import { approvalAnswerersModule } from '../../providers/policy/approval/approval.module.js';
import { checkOneEngine } from './config-sections.js';
import type { DshConfig } from './dsh-config.js';

// Only the chosen composition's file is loaded (start-up, see docs/performance.md).
const environments = {
  local: lazyModule<typeof import('../local.environment.js')>(
    () => require('../local.environment.js'),
    () => import('../local.environment.js'),
  ),
  sandboxed: lazyModule<typeof import('../sandboxed.environment.js')>(
    () => require('../sandboxed.environment.js'),
    () => import('../sandboxed.environment.js'),
  ),
  container: lazyModule<typeof import('../container.environment.js')>(
    () => require('../container.environment.js'),
    () => import('../container.environment.js'),
  ),
  kubernetes: lazyModule<typeof import('../kubernetes.environment.js')>(
    () => require('../kubernetes.environment.js'),
    () => import('../kubernetes.environment.js'),
  ),
};

/**
 * The modules a composition file describes, chosen as the CLI chooses them:
 * `kubernetes:` → `kubernetesEnvironment`, `container:` → `containerEnvironment`,
 * `sandbox:` → `sandboxedEnvironment`, else `localEnvironment`. In container
 * and Kubernetes mode the engine is the confinement: of `sandbox:` only `mode`
 * (how the workspace is mounted) and, for containers, `network: false` apply.
 * `serve:` is the CLI's and composes nothing but `sharedSessions`.
 */
export async function configModules(config: DshConfig): Promise<PluginModule[]> {
  checkOneEngine(config);
  const { serve, container, kubernetes, sandbox, answerers = [], ...local } = config;
  // The one `serve:` setting that changes the composition: sessions' sandboxes outlive the server (docs/shared-sessions.md).
  const shared = serve?.sharedSessions === true ? { sharedSessions: true } : {};
  const answering = answerers.length > 0 ? [approvalAnswerersModule(answerers)] : [];
  if (kubernetes !== undefined) {
    const { kubernetesEnvironment } = await environments.kubernetes();
    const mode = sandbox?.mode === undefined ? {} : { sandbox: { mode: sandbox.mode } };
    return [...kubernetesEnvironment({ ...local, ...mode, ...shared, kubernetes: kubernetes as typeof kubernetes & { image: string } }), ...answering];
  }
  if (container !== undefined) {
    const { containerEnvironment } = await environments.container();
    const engineSandbox = {
      ...(sandbox?.mode === undefined ? {} : { mode: sandbox.mode }),
      ...(sandbox?.network === undefined ? {} : { network: sandbox.network }),
    };
    const withSandbox = Object.keys(engineSandbox).length === 0 ? {} : { sandbox: engineSandbox };
    return [...containerEnvironment({ ...local, ...withSandbox, ...shared, container: container as typeof container & { image: string } }), ...answering];
  }
  if (sandbox !== undefined) return (await environments.sandboxed()).sandboxedEnvironment({ ...local, sandbox, answerers });
  return [...(await environments.local()).localEnvironment(local), ...answering];
}
