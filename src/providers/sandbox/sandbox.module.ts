import { bindProvider } from '../../container/contributions.js';
import { PluginModule } from '../../container/plugin-module.js';
import { resolveExecutorConfig } from '../shell/executor-config.js';
import { ExecutorConfig, ShellExecutor } from '../shell/shell-executor.js';
import { BwrapSandboxProvider } from './bwrap-sandbox-provider.js';
import { LocalSandboxPolicy } from './local-sandbox-policy.js';
import { resolveSandboxConfig, SandboxConfig } from './sandbox-config.js';
import { SandboxPolicy, SandboxProvider } from './sandbox-policy.js';
import { SandboxedShellExecutor } from './sandboxed-shell-executor.js';

/**
 * The sandbox seams: `SandboxConfig`, `SandboxPolicy` → `LocalSandboxPolicy`
 * and `SandboxProvider` → `BwrapSandboxProvider` (singletons). A bad config
 * fails the load. Pair it with `sandboxedShellModule` (or any executor that
 * confines through the provider).
 */
export function sandboxModule(config: Partial<SandboxConfig> = {}): PluginModule {
  return new PluginModule('sandbox:bwrap', ({ bind }) => {
    resolveSandboxConfig(config);
    bind(SandboxConfig).toConstantValue(Object.freeze({ ...config }));
    bindProvider(bind, SandboxPolicy, LocalSandboxPolicy);
    bindProvider(bind, SandboxProvider, BwrapSandboxProvider);
  });
}

/**
 * The sandboxed executor (`ShellExecutor` → `SandboxedShellExecutor`,
 * singleton) with its executor config; it reads `SandboxConfig` and the
 * `SandboxProvider` from `sandboxModule`. Unloading disposes it like the
 * local executor.
 */
export function sandboxedShellModule(config: Partial<ExecutorConfig> = {}): PluginModule {
  return new PluginModule('shell:sandboxed', ({ bind }) => {
    resolveExecutorConfig(config);
    bind(ExecutorConfig).toConstantValue(Object.freeze({ ...config }));
    bindProvider(bind, ShellExecutor, SandboxedShellExecutor);
  });
}
