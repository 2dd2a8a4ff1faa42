import { createHost } from '../container/create-host.js';
import type { DshHost } from '../container/dsh-host.js';
import { localEnvironment } from '../plugins/local.environment.js';
import { sandboxedEnvironment, type SandboxedEnvironmentOptions } from '../plugins/sandboxed.environment.js';
import { resolveEnvironment, type GlobalOptions } from './cli-options.js';

/** Builds the host a command runs on, from the shared options. */
export async function hostFromOptions(
  options: GlobalOptions,
  adjust: (environment: SandboxedEnvironmentOptions) => SandboxedEnvironmentOptions = (environment) => environment,
): Promise<{ host: DshHost; workspace: string }> {
  const environment = adjust(await resolveEnvironment(options));
  const modules = environment.sandbox !== undefined ? sandboxedEnvironment(environment) : localEnvironment(environment);
  const host = await createHost(...modules);
  return { host, workspace: environment.workspace! };
}
