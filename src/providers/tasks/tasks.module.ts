import { bindSeam } from '../../core/contributions.js';
import { PluginModule } from '../../core/plugin-module.js';
import { LocalTaskRuntime } from './local-task-runtime.js';
import { resolveTaskRuntimeConfig } from './task-runtime-config.js';
import { TaskRuntime, TaskRuntimeConfig } from './task-runtime.js';

/**
 * The local task runtime as a plugin: binds `TaskRuntimeConfig` and a
 * singleton `TaskRuntime` that is disposed (live tasks killed and awaited)
 * when the module is unloaded. A bad config fails here, at composition.
 */
export function taskRuntimeModule(config: Partial<TaskRuntimeConfig> = {}): PluginModule {
  const resolved = resolveTaskRuntimeConfig(config);
  return new PluginModule('tasks:local', ({ bind }) => {
    bind(TaskRuntimeConfig).toConstantValue(resolved);
    bindSeam(bind, TaskRuntime)
      .to(LocalTaskRuntime)
      .inSingletonScope()
      .onDeactivation((runtime) => runtime.dispose());
  });
}
