import { createHost } from '../container/create-host.js';
import type { DshHost } from '../container/dsh-host.js';
import { configModules } from '../plugins/config/config-modules.js';
import { workspaceProblem } from '../plugins/workspace.module.js';
import { SYSTEM_ROOT_HINT } from '../providers/backends/bwrap/workspace-pin.js';
import { resolveEnvironment, type CliEnvironment, type GlobalOptions } from './cli-options.js';

/** Builds the host a command runs on, from the shared options: the library's `configModules` over the flags. */
export async function hostFromOptions(
  options: GlobalOptions,
  adjust: (environment: CliEnvironment) => CliEnvironment = (environment) => environment,
): Promise<{ host: DshHost; workspace: string }> {
  // The usual composition loads while the options resolve (the others build on it or are rare).
  const usual = import('../plugins/local.environment.js');
  usual.catch(() => undefined);
  const environment = adjust(await resolveEnvironment(options));
  const workspace = environment.workspace!;
  // createHost refuses it too; here the message can name the flag.
  if (workspaceProblem(workspace) !== undefined) {
    throw new Error(`the workspace ${workspace} is not a directory (check --workspace or the config file)`);
  }
  const host = await createHost(...(await configModules(environment).catch(withFlagHint)));
  return { host, workspace };
}

/** The library asks for a project directory; the CLI says which flag sets it. */
function withFlagHint(error: unknown): never {
  if (error instanceof Error && error.message.endsWith(SYSTEM_ROOT_HINT)) {
    error.message = `${error.message.slice(0, -SYSTEM_ROOT_HINT.length)}start the server in your project directory or pass --workspace <dir> (config: workspace)`;
  }
  throw error;
}
