import { bindSeam } from '../../core/contributions.js';
import { PluginModule } from '../../core/plugin-module.js';
import { LocalTaskRuntime } from './local-task-runtime.js';
import { SharedTaskRuntime } from './shared-task-runtime.js';
import { SharedMcpTaskStore } from './shared-mcp-task-store.js';
import { McpTaskStore } from './mcp-task-store.js';
import { Logger } from '../logging/logger.js';
import { Redactor } from '../output-filter/redactor.js';
import { resolveExecutorConfig } from '../exec/shell/executor-config.js';
import { ExecutorConfig } from '../exec/shell/shell-executor.js';
import { SessionContainersToken } from '../exec/engine/session-containers.js';
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

/**
 * `serve --shared-sessions` (docs/shared-sessions.md#tasks): the task runtime
 * whose session tasks run detached in the session's sandbox and are recorded
 * beside it, so that every replica serves them; and the store of MCP tasks
 * beside them (docs/shared-sessions.md#mcp-tasks). Needs the container modules.
 */
export function sharedTaskRuntimeModule(config: Partial<TaskRuntimeConfig> = {}): PluginModule {
  const resolved = resolveTaskRuntimeConfig(config);
  return new PluginModule('tasks:shared', ({ bind }) => {
    bind(TaskRuntimeConfig).toConstantValue(resolved);
    bindSeam(bind, TaskRuntime)
      .toDynamicValue((ctx) => {
        const executor = resolveExecutorConfig(ctx.get(ExecutorConfig, { optional: true }) ?? {});
        const limits = { maxOutputBytes: executor.maxOutputBytes, maxSpillBytes: executor.maxSpillBytes, graceMs: executor.graceMs };
        return new SharedTaskRuntime(ctx.get(SessionContainersToken), limits, resolved, ctx.get(Redactor, { optional: true }), ctx.get(Logger, { optional: true }));
      })
      .inSingletonScope()
      .onDeactivation((runtime) => runtime.dispose());
    bindSeam(bind, McpTaskStore)
      .toDynamicValue((ctx) => new SharedMcpTaskStore(ctx.get(SessionContainersToken)))
      .inSingletonScope();
  });
}
