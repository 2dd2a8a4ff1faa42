import type { PluginModule } from '../core/plugin-module.js';
import { envModule, staticEnvModule } from '../providers/policy/env/env.module.js';
import type { ExecutorConfig } from '../providers/exec/shell/shell-executor.js';
import { shellModule } from '../providers/backends/local/shell.module.js';
import type { TaskRuntimeConfig } from '../providers/tasks/task-runtime.js';
import { taskRuntimeModule } from '../providers/tasks/tasks.module.js';
import { terminalModule } from '../providers/backends/pty/terminal.module.js';
import { outputFilterModule } from '../providers/output-filter/output-filter.module.js';
import type { RedactionConfig } from '../providers/output-filter/redactor.js';
import type { BashToolConfig } from '../tools/bash/bash-config.js';
import { bashToolModule } from '../tools/bash/bash.module.js';
import type { PersistentBashConfig } from '../tools/persistent-bash/persistent-bash-config.js';
import { persistentBashModule } from '../tools/persistent-bash/persistent-bash.module.js';
import { taskToolsModule } from '../tools/tasks/task-tools.module.js';
import { coreModule, type CoreOptions } from './core.module.js';
import { plannerModule } from '../providers/policy/planner/planner.module.js';

import type { ApprovalConfig } from '../providers/policy/approval/approval-config.js';
import { approvalModule } from '../providers/policy/approval/approval.module.js';
import { resolveBashToolConfig } from '../tools/bash/bash-config.js';
import { resolveShellTools, type ShellChoice, type ShellToolNames } from './shell-choice.js';
import { checkOptionKeys, LOCAL_OPTION_KEYS } from './option-keys.js';
import { workspaceModule } from './workspace.module.js';

export type { ShellChoice, ShellToolNames };

/** Everything a deployment configures; every field optional, defaults documented in docs/configuration.md. */
export interface EnvironmentOptions extends CoreOptions {
  /** Which shell tools are mounted: `oneshot`, `persistent`, or `both` (under distinct names). Default `oneshot`. */
  readonly shell?: ShellChoice;
  /** Tool names of the shells (see `ShellToolNames`): `bash`, and `bash_persistent` for the persistent one beside the one-shot. */
  readonly toolNames?: ShellToolNames;
  readonly executor?: Partial<ExecutorConfig>;
  readonly tasks?: Partial<TaskRuntimeConfig>;
  readonly bash?: Partial<BashToolConfig>;
  readonly persistent?: Partial<PersistentBashConfig>;
  /** Static `DSH_*` values, one contributor per entry name. */
  readonly env?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Secrets kept out of model-visible text (see docs/configuration.md). */
  readonly redact?: Partial<RedactionConfig>;
  /** Approval settings and command rules; when present the approval service and command policy are loaded. */
  readonly approval?: Partial<ApprovalConfig>;
}

/**
 * The default composition on this machine: local executor, env registry,
 * task runtime, and the one-shot `bash`, the persistent `bash`, or both
 * under distinct names. The task tools and their prompt section come only
 * with a shell that can start a task (the one-shot shell with background
 * runs or timeout promotion): the persistent shell starts none. Unknown
 * option keys throw; a workspace that is not a directory fails `createHost`.
 */
export function localEnvironment(options: EnvironmentOptions = {}): PluginModule[] {
  checkOptionKeys('localEnvironment', options, LOCAL_OPTION_KEYS);
  const { shell, toolNames, executor, tasks, bash, persistent, env = {}, redact, approval, ...core } = options;
  const tools = resolveShellTools(shell, toolNames);
  const modules = [
    coreModule(core),
    workspaceModule(core.workspace),
    outputFilterModule(redact),
    envModule(),
    ...Object.entries(env).map(([name, values]) => staticEnvModule(name, values)),
    shellModule({ cwd: core.workspace, ...executor }),
    plannerModule(),
    taskRuntimeModule(tasks),
  ];
  if (tools.oneshot !== undefined) {
    const config = resolveBashToolConfig(bash);
    if (config.enableRunInBackground || config.onTimeout === 'promote') modules.push(taskToolsModule());
  }
  if (approval !== undefined) modules.push(approvalModule(approval));
  if (tools.persistent !== undefined) {
    modules.push(terminalModule(), persistentBashModule(persistent, { name: tools.persistent, besideOneShot: tools.oneshot !== undefined }));
  }
  if (tools.oneshot !== undefined) modules.push(bashToolModule(bash, tools.oneshot));
  return modules;
}
