import { PluginModule } from '../container/plugin-module.js';
import { ApprovalAnswerer } from '../providers/approval/approval-service.js';
import { envModule } from '../providers/env/env.module.js';
import { ShellExecutor } from '../providers/shell/shell-executor.js';
import { taskRuntimeModule } from '../providers/tasks/tasks.module.js';
import { ScriptedExecutor } from '../testing/scripted-executor.js';
import { bashToolModule } from '../tools/bash/bash.module.js';
import { taskToolsModule } from '../tools/tasks/task-tools.module.js';
import { coreModule, type CoreOptions } from './core.module.js';

export interface TestingEnvironmentOptions extends CoreOptions {
  /** The executor every call goes to; a fresh `ScriptedExecutor` answering a clean exit by default. */
  readonly executor?: ShellExecutor;
  /** Approval answerers, consulted in order. */
  readonly answerers?: readonly ApprovalAnswerer[];
}

/**
 * The production tools and registries over fake process edges: nothing
 * spawns. Use it to unit-test a composition, or start from `localEnvironment`
 * and `replace` one binding.
 */
export function testingEnvironment(options: TestingEnvironmentOptions = {}): PluginModule[] {
  const { executor = new ScriptedExecutor(), answerers = [], ...core } = options;
  return [
    coreModule(core),
    envModule(),
    new PluginModule('shell:scripted', ({ bind }) => {
      bind(ShellExecutor).toConstantValue(executor);
    }),
    new PluginModule('approval:answerers', ({ bind }) => {
      for (const answerer of answerers) bind(ApprovalAnswerer).toConstantValue(answerer);
    }),
    taskRuntimeModule(),
    taskToolsModule(),
    bashToolModule(),
  ];
}
