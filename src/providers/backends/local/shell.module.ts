import { bindProvider } from '../../../core/contributions.js';
import { PluginModule } from '../../../core/plugin-module.js';
import { resolveExecutorConfig } from '../../exec/shell/executor-config.js';
import { LocalShellExecutor } from './local-shell-executor.js';
import { ExecutorConfig, ShellExecutor } from '../../exec/shell/shell-executor.js';

/**
 * The local shell executor (`ShellExecutor` → `LocalShellExecutor`, singleton)
 * with its config. A bad config fails the module's load rather than the first
 * command; unloading the module disposes the executor (its `@preDestroy`
 * kills what it runs and deletes its spill files).
 */
export function shellModule(config: Partial<ExecutorConfig> = {}): PluginModule {
  return new PluginModule('shell:local', ({ bind }) => {
    resolveExecutorConfig(config);
    bind(ExecutorConfig).toConstantValue(Object.freeze({ ...config }));
    bindProvider(bind, ShellExecutor, LocalShellExecutor);
  });
}
