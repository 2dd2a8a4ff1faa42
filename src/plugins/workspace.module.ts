import { statSync } from 'node:fs';
import path from 'node:path';
import { PluginModule } from '../core/plugin-module.js';

/**
 * Refuses, when the host loads it, a workspace that is not a directory:
 * every call would fail in it (`createHost` rejects with
 * `failed to load plugin "workspace": the workspace <path> does not exist`).
 * Checked at load, not at composition, so a directory made in between counts.
 */
export function workspaceModule(workspace: string | undefined): PluginModule {
  return new PluginModule('workspace', () => {
    if (workspace === undefined) return;
    const problem = workspaceProblem(workspace);
    if (problem !== undefined) throw new Error(problem);
  });
}

/** Why `workspace` cannot be one, or undefined when it is a directory. */
export function workspaceProblem(workspace: string): string | undefined {
  const absolute = path.resolve(workspace);
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(absolute, { throwIfNoEntry: false });
  } catch (error) {
    return `the workspace ${absolute} cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`;
  }
  if (stat === undefined) return `the workspace ${absolute} does not exist`;
  return stat.isDirectory() ? undefined : `the workspace ${absolute} is not a directory`;
}
