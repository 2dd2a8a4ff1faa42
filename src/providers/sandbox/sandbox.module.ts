import { bindProvider } from '../../core/contributions.js';
import { PluginModule } from '../../core/plugin-module.js';
import { BwrapSandboxProvider } from './bwrap-sandbox-provider.js';
import { Confinement } from './confinement.js';
import { LocalSandboxPolicy } from './local-sandbox-policy.js';
import { resolveSandboxConfig, SandboxConfig } from './sandbox-config.js';
import { SandboxConfinement } from './sandbox-confinement.js';
import { SandboxPolicy, SandboxProvider } from './sandbox-policy.js';

/**
 * The sandbox seams: `SandboxConfig`, `SandboxPolicy` → `LocalSandboxPolicy`,
 * `SandboxProvider` → `BwrapSandboxProvider` and `Confinement` →
 * `SandboxConfinement` (singletons; the confinement's private temp dirs are
 * removed when the module unloads). A bad config fails the load. Every shell
 * backend that takes a `Confinement` (the local executor, the PTY backend)
 * confines through it once this module is loaded.
 */
export function sandboxModule(config: Partial<SandboxConfig> = {}): PluginModule {
  return new PluginModule('sandbox:bwrap', ({ bind }) => {
    bind(SandboxConfig).toConstantValue(resolveSandboxConfig(config));
    bindProvider(bind, SandboxPolicy, LocalSandboxPolicy);
    bindProvider(bind, SandboxProvider, BwrapSandboxProvider);
    bindProvider(bind, Confinement, SandboxConfinement);
  });
}
