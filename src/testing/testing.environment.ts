import { bindSeam } from '../core/contributions.js';
import { PluginModule } from '../core/plugin-module.js';
import type { ApprovalAnswerer } from '../providers/policy/approval/approval-service.js';
import { envModule } from '../providers/policy/env/env.module.js';
import { approvalAnswerersModule, approvalModule } from '../providers/policy/approval/approval.module.js';
import { ShellExecutor } from '../providers/exec/shell/shell-executor.js';
import { taskRuntimeModule } from '../providers/tasks/tasks.module.js';
import { ScriptedExecutor } from './scripted-executor.js';
import { ScriptedConfinement } from './scripted-confinement.js';
import { plannerModule } from '../providers/policy/planner/planner.module.js';
import { Confinement } from '../providers/policy/sandbox/confinement.js';
import { LocalSandboxPolicy } from '../providers/backends/bwrap/local-sandbox-policy.js';
import { SandboxConfig } from '../providers/backends/bwrap/sandbox-config.js';
import { SandboxPolicy } from '../providers/policy/sandbox/sandbox-policy.js';
import { ExecutionSite } from '../core/execution-site.js';
import type { SandboxMode } from '../core/sandbox-mode.js';
import { InMemoryTerminal } from './in-memory-terminal.js';
import { bindTerminalService } from '../providers/exec/terminal/terminal-binding.js';
import { TerminalBackend } from '../providers/exec/terminal/terminal-service.js';
import { PERSISTENT_BESIDE_ONESHOT } from '../plugins/shell-choice.js';
import { persistentBashModule } from '../tools/persistent-bash/persistent-bash.module.js';
import { bashToolModule } from '../tools/bash/bash.module.js';
import { taskToolsModule } from '../tools/tasks/task-tools.module.js';
import { coreModule, type CoreOptions } from '../plugins/core.module.js';

import type { ApprovalConfig } from '../providers/policy/approval/approval-config.js';
export interface TestingEnvironmentOptions extends CoreOptions {
  /** `persistent` mounts the persistent bash over the in-memory terminal; `both` mounts it as `bash_persistent` beside the one-shot `bash`. Default `oneshot`. */
  readonly shell?: 'oneshot' | 'persistent' | 'both';
  /** The terminal backend for `shell: 'persistent'`; a fresh `InMemoryTerminal` by default. */
  readonly terminal?: TerminalBackend;
  /** The executor every call goes to; a fresh `ScriptedExecutor` answering a clean exit by default. */
  readonly executor?: ShellExecutor;
  /** Approval answerers, consulted in order. */
  readonly answerers?: readonly ApprovalAnswerer[];
  /** Approval settings and command rules. */
  readonly approval?: Partial<ApprovalConfig>;
}

/**
 * The production tools and registries over fake process edges: nothing
 * spawns. Use it to unit-test a composition, or start from `localEnvironment`
 * and `replace` one binding.
 */
export function testingEnvironment(options: TestingEnvironmentOptions = {}): PluginModule[] {
  const { executor = new ScriptedExecutor(), answerers = [], shell = 'oneshot', terminal, approval, ...core } = options;
  const persistent =
    shell === 'oneshot'
      ? []
      : [
          new PluginModule('terminal:in-memory', (load) => {
            load.bind(TerminalBackend).toConstantValue(terminal ?? new InMemoryTerminal());
            bindTerminalService(load);
          }),
          persistentBashModule({}, shell === 'both' ? { name: PERSISTENT_BESIDE_ONESHOT, besideOneShot: true } : {}),
        ];
  // As in the production compositions: the task tools only beside the shell that can start a task.
  const oneShot = shell === 'persistent' ? [] : [taskToolsModule(), bashToolModule()];
  const sandboxMode = (executor as { readonly sandboxMode?: SandboxMode }).sandboxMode;
  return [
    coreModule(core),
    envModule(),
    new PluginModule('shell:scripted', ({ bind }) => {
      bindSeam(bind, ShellExecutor).toConstantValue(executor);
    }),
    ...(sandboxMode === undefined ? [] : [scriptedSandboxModule(sandboxMode)]),
    plannerModule(),
    approvalModule(approval),
    approvalAnswerersModule(answerers),
    taskRuntimeModule(),
    ...persistent,
    ...oneShot,
  ];
}

/** A sandbox that confines nothing but decides like the real one (a `ScriptedExecutor` given a mode). */
function scriptedSandboxModule(mode: SandboxMode): PluginModule {
  return new PluginModule('sandbox:scripted', ({ bind }) => {
    bind(SandboxConfig).toConstantValue({ mode });
    bindSeam(bind, SandboxPolicy).to(LocalSandboxPolicy).inSingletonScope();
    bindSeam(bind, Confinement).toConstantValue(new ScriptedConfinement(mode));
    bind(ExecutionSite).toConstantValue('sandbox');
  });
}
