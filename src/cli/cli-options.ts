import path from 'node:path';
import { SHELL_CHOICES, type ShellChoice } from '../plugins/shell-choice.js';
import { isSandboxMode } from '../core/sandbox-mode.js';
import { loadConfigFile } from '../plugins/config/config-file.js';
import { hideServerFile } from '../core/server-files.js';
import type { CliEnvironment } from './cli-environment.js';

/** Options every command shares. */
export interface GlobalOptions {
  readonly config?: string;
  readonly shell?: string;
  readonly sandbox?: string;
  /** False with `--no-network` (commander's default for a negated flag is true). */
  readonly network?: boolean;
  readonly workspace?: string;
  readonly container?: string;
  readonly kubernetes?: string;
}

export type { CliEnvironment } from './cli-environment.js';

/**
 * The composition a command runs: the config file (if any), then command-line
 * flags over it. A sandbox setting (`--sandbox`, `--no-network` or the
 * file's `sandbox`) selects the sandboxed environment. Throws a clear message for bad values.
 */
export async function resolveEnvironment(options: GlobalOptions): Promise<CliEnvironment> {
  const fromFile = options.config ? await loadConfigFile(options.config) : {};
  // The config may hold secrets (redact values, tokens): no command reads it (docs/security.md#hidden-server-files).
  hideServerFile(options.config);
  hideServerFile(fromFile.audit?.file);
  if (options.shell !== undefined && !SHELL_CHOICES.includes(options.shell as ShellChoice)) {
    throw new Error(`invalid --shell "${options.shell}": expected oneshot, persistent or both`);
  }
  if (options.sandbox !== undefined && !isSandboxMode(options.sandbox)) {
    throw new Error(`invalid --sandbox "${options.sandbox}": expected read-only, workspace-write or danger-full-access`);
  }
  const workspace = path.resolve(options.workspace ?? fromFile.workspace ?? process.cwd());
  const environment: CliEnvironment = {
    ...fromFile,
    workspace,
    shell: (options.shell as ShellChoice | undefined) ?? fromFile.shell,
    ...(options.sandbox !== undefined || options.network === false
      ? {
          sandbox: {
            ...fromFile.sandbox,
            ...(options.sandbox !== undefined ? { mode: options.sandbox } : {}),
            ...(options.network === false ? { network: false } : {}),
          },
        }
      : {}),
    ...(options.container !== undefined ? { container: { ...fromFile.container, image: options.container } } : {}),
    ...(options.kubernetes !== undefined ? { kubernetes: { ...fromFile.kubernetes, image: options.kubernetes } } : {}),
  };
  // The library says the same of the sections (configModules); here the flags are named too.
  if (environment.container !== undefined && environment.kubernetes !== undefined) {
    throw new Error('--container and --kubernetes (or the container: and kubernetes: sections) exclude each other: choose one');
  }
  return environment;
}
