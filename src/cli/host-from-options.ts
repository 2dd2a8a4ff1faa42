import { createHost } from '../container/create-host.js';
import type { DshHost } from '../container/dsh-host.js';
import type { PluginModule } from '../core/plugin-module.js';
import type { containerEnvironment } from '../plugins/container.environment.js';
import type { kubernetesEnvironment } from '../plugins/kubernetes.environment.js';
import { resolveEnvironment, type CliEnvironment, type GlobalOptions } from './cli-options.js';

/** Builds the host a command runs on, from the shared options. */
export async function hostFromOptions(
  options: GlobalOptions,
  adjust: (environment: CliEnvironment) => CliEnvironment = (environment) => environment,
): Promise<{ host: DshHost; workspace: string }> {
  // The usual composition loads while the options resolve (the others build on it or are rare).
  const usual = import('../plugins/local.environment.js');
  usual.catch(() => undefined);
  const environment = adjust(await resolveEnvironment(options));
  const host = await createHost(...(await modulesOf(environment)));
  return { host, workspace: environment.workspace! };
}

/** The chosen composition's modules; only its environment file is loaded (start-up, see docs/performance.md). */
async function modulesOf(environment: CliEnvironment): Promise<PluginModule[]> {
  if (environment.kubernetes !== undefined) {
    const { kubernetesEnvironment } = await import('../plugins/kubernetes.environment.js');
    return kubernetesModules(kubernetesEnvironment, environment);
  }
  if (environment.container !== undefined) {
    const { containerEnvironment } = await import('../plugins/container.environment.js');
    return containerModules(containerEnvironment, environment);
  }
  if (environment.sandbox !== undefined) return (await import('../plugins/sandboxed.environment.js')).sandboxedEnvironment(environment);
  return (await import('../plugins/local.environment.js')).localEnvironment(environment);
}

/**
 * Container mode: the container is the confinement, so the sandbox section
 * only chooses how the workspace is mounted (and `network: false` means no
 * network); no bwrap and no approval service are composed.
 */
function containerModules(compose: typeof containerEnvironment, environment: CliEnvironment): ReturnType<typeof containerEnvironment> {
  const { container, sandbox, approval: _approval, answerers: _answerers, ...local } = environment;
  const network = sandbox?.network === false ? { network: 'none' } : {};
  return compose({
    ...local,
    container: { ...network, ...container } as NonNullable<CliEnvironment['container']> & { image: string },
    ...(sandbox?.mode === undefined ? {} : { sandboxMode: sandbox.mode }),
  });
}

/** Kubernetes mode: as container mode, every session in its own pod; a read-only sandbox mode mounts the workspace read-only. */
function kubernetesModules(compose: typeof kubernetesEnvironment, environment: CliEnvironment): ReturnType<typeof kubernetesEnvironment> {
  const { kubernetes, container: _container, sandbox, approval: _approval, answerers: _answerers, ...local } = environment;
  return compose({
    ...local,
    kubernetes: kubernetes as NonNullable<CliEnvironment['kubernetes']> & { image: string },
    ...(sandbox?.mode === undefined ? {} : { sandboxMode: sandbox.mode }),
  });
}
