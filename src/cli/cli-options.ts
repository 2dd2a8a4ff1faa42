import path from 'node:path';
import type { EnvironmentOptions, ShellChoice } from '../plugins/local.environment.js';
import { loadConfigFile } from './config-file.js';

/** Options every command shares. */
export interface GlobalOptions {
  readonly config?: string;
  readonly shell?: string;
  readonly sandbox?: string;
  readonly workspace?: string;
}

const SHELLS: readonly ShellChoice[] = ['oneshot', 'persistent'];

/**
 * The composition a command runs: the config file (if any), then command-line
 * flags over it. Throws a clear message for bad values.
 */
export async function resolveEnvironment(options: GlobalOptions): Promise<EnvironmentOptions> {
  const fromFile = options.config ? await loadConfigFile(options.config) : {};
  if (options.shell !== undefined && !SHELLS.includes(options.shell as ShellChoice)) {
    throw new Error(`invalid --shell "${options.shell}": expected oneshot or persistent`);
  }
  if (options.sandbox !== undefined && options.sandbox !== 'danger-full-access') {
    throw new Error(
      `--sandbox ${options.sandbox} needs the sandboxed environment, which this build does not include yet; ` +
        'use --sandbox danger-full-access or omit the flag',
    );
  }
  const workspace = path.resolve(options.workspace ?? fromFile.workspace ?? process.cwd());
  return {
    ...fromFile,
    workspace,
    shell: (options.shell as ShellChoice | undefined) ?? fromFile.shell,
  };
}
