import { bindPromptSection, bindProvider } from '../../../core/contributions.js';
import { protectedPathsPrompt } from '../../../core/protected-paths.js';
import { sandboxWherePrompt, WHERE_PROMPT_SECTION } from '../../../core/where-prompt.js';
import { ExecutionSite } from '../../../core/execution-site.js';
import { PluginModule } from '../../../core/plugin-module.js';
import { BwrapSandboxProvider } from './bwrap-sandbox-provider.js';
import { Confinement } from '../../policy/sandbox/confinement.js';
import { LocalSandboxPolicy } from './local-sandbox-policy.js';
import { resolveSandboxConfig, SandboxConfig } from './sandbox-config.js';
import { SandboxConfinement } from './sandbox-confinement.js';
import { SandboxPolicy, SandboxProvider } from '../../policy/sandbox/sandbox-policy.js';
import { FallbackPlanner } from '../../policy/planner/fallback-planner.js';

/**
 * The sandbox seams: `SandboxConfig`, `SandboxPolicy` → `LocalSandboxPolicy`,
 * `SandboxProvider` → `BwrapSandboxProvider` and `Confinement` →
 * `SandboxConfinement` (singletons; the confinement's private temp dirs are
 * removed when the module unloads). A bad config fails the load. The call
 * planner decides each call's confinement through it, and so does the
 * policy's `FallbackPlanner` (a request nobody planned gets the session's
 * default). Its prompt sections name the protected paths and
 * say what the default mode lets commands do (and that they have no network, when so).
 */
export function sandboxModule(config: Partial<SandboxConfig> = {}): PluginModule {
  return new PluginModule('sandbox:bwrap', ({ bind }) => {
    const resolved = resolveSandboxConfig(config);
    bind(SandboxConfig).toConstantValue(resolved);
    bindPromptSection(bind, { name: 'sandbox:protected-paths', order: 107, text: protectedPathsPrompt(resolved.protectedPaths) });
    bindPromptSection(bind, { ...WHERE_PROMPT_SECTION, text: sandboxWherePrompt(resolved.mode, resolved.network) });
    bindProvider(bind, SandboxPolicy, LocalSandboxPolicy);
    bindProvider(bind, SandboxProvider, BwrapSandboxProvider);
    bindProvider(bind, Confinement, SandboxConfinement);
    // The plan the executors ask for a request no planner decided (a tool of the embedder's own).
    bind(FallbackPlanner).toService(Confinement);
    bind(ExecutionSite).toConstantValue('sandbox');
  });
}
