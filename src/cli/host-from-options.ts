import { createHost } from '../container/create-host.js';
import type { DshHost } from '../container/dsh-host.js';
import { localEnvironment } from '../plugins/local.environment.js';
import { sandboxedEnvironment } from '../plugins/sandboxed.environment.js';
import { containerEnvironment } from '../plugins/container.environment.js';
import { kubernetesEnvironment } from '../plugins/kubernetes.environment.js';
import { resolveEnvironment, type CliEnvironment, type GlobalOptions } from './cli-options.js';

/** Builds the host a command runs on, from the shared options. */
export async function hostFromOptions(
  options: GlobalOptions,
  adjust: (environment: CliEnvironment) => CliEnvironment = (environment) => environment,
): Promise<{ host: DshHost; workspace: string }> {
  const environment = adjust(await resolveEnvironment(options));
  const modules =
    environment.kubernetes !== undefined
      ? kubernetesModules(environment)
      : environment.container !== undefined
      ? containerModules(environment)
      : environment.sandbox !== undefined
        ? sandboxedEnvironment(environment)
        : localEnvironment(environment);
  const host = await createHost(...modules);
  return { host, workspace: environment.workspace! };
}

/**
 * Container mode: the container is the confinement, so the sandbox section
 * only chooses how the workspace is mounted (and `network: false` means no
 * network); no bwrap and no approval service are composed.
 */
function containerModules(environment: CliEnvironment): ReturnType<typeof containerEnvironment> {
  const { container, sandbox, approval: _approval, answerers: _answerers, ...local } = environment;
  const network = sandbox?.network === false ? { network: 'none' } : {};
  return containerEnvironment({
    ...local,
    container: { ...network, ...container } as NonNullable<CliEnvironment['container']> & { image: string },
    ...(sandbox?.mode === undefined ? {} : { sandboxMode: sandbox.mode }),
  });
}

/** Kubernetes mode: as container mode, every session in its own pod; a read-only sandbox mode mounts the workspace read-only. */
function kubernetesModules(environment: CliEnvironment): ReturnType<typeof kubernetesEnvironment> {
  const { kubernetes, container: _container, sandbox, approval: _approval, answerers: _answerers, ...local } = environment;
  return kubernetesEnvironment({
    ...local,
    kubernetes: kubernetes as NonNullable<CliEnvironment['kubernetes']> & { image: string },
    ...(sandbox?.mode === undefined ? {} : { sandboxMode: sandbox.mode }),
  });
}
