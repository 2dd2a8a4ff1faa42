import { createHost } from '../container/create-host.js';
import type { DshHost } from '../container/dsh-host.js';
import { localEnvironment, type EnvironmentOptions } from '../plugins/local.environment.js';
import { resolveEnvironment, type GlobalOptions } from './cli-options.js';

/** Builds the host a command runs on, from the shared options. */
export async function hostFromOptions(
  options: GlobalOptions,
  adjust: (environment: EnvironmentOptions) => EnvironmentOptions = (environment) => environment,
): Promise<{ host: DshHost; workspace: string }> {
  const environment = adjust(await resolveEnvironment(options));
  const host = await createHost(...localEnvironment(environment));
  return { host, workspace: environment.workspace! };
}
