import { bindPromptSection, bindSeam } from '../../../core/contributions.js';
import { protectedPathsPrompt } from '../../../core/protected-paths.js';
import { containerWherePrompt, WHERE_PROMPT_SECTION } from '../../../core/where-prompt.js';
import type { ResolutionContext } from 'inversify';
import { ExecutionSite } from '../../../core/execution-site.js';
import { PluginModule } from '../../../core/plugin-module.js';
import { Redactor } from '../../output-filter/redactor.js';
import { resolveBashPtyConfig, type BashPtyConfig } from '../terminal/bash-pty-config.js';
import { bindTerminalService } from '../terminal/terminal-binding.js';
import { TerminalBackend } from '../terminal/terminal-service.js';
import { resolveExecutorConfig } from '../shell/executor-config.js';
import { ExecutorConfig, ShellExecutor } from '../shell/shell-executor.js';
import { ContainerConfig, resolveContainerConfig, type ResolvedContainerConfig } from './container-config.js';
import { ContainerEngine } from './container-engine.js';
import { ContainerShellExecutor } from './container-shell-executor.js';
import { ContainerTerminalBackend } from './container-terminal-backend.js';
import { SessionContainers, SessionContainersToken } from './session-containers.js';
import { assertSharedPoolable } from './shared-containers.js';
import { bindReadinessCheck } from '../../health/readiness-check.js';
import { engineReadinessCheck } from './engine-readiness.js';

export interface ContainerShellModuleOptions {
  readonly container: unknown;
  /** Bind-mounted at the same path; read-only when `workspaceReadOnly`. */
  readonly workspace?: string;
  readonly workspaceReadOnly?: boolean;
  readonly executor?: Partial<ExecutorConfig>;
  /** Another engine provider (tests, a Kubernetes provider); default Docker at `container.host`. */
  readonly engine?: ContainerEngine;
  /** `serve --shared-sessions`: sessions' sandboxes outlive this server (docs/shared-sessions.md#sandboxes); default false. */
  readonly sharedSessions?: boolean;
}

/** The options with the engine chosen (the Docker backend supplies its default). */
type EngineSessionModuleOptions = ContainerShellModuleOptions & { readonly engine: ContainerEngine };

/**
 * Container execution: the engine, the per-session containers and the
 * container `ShellExecutor`. Bad config fails here, at composition; unloading
 * stops running commands and removes every session's container. Its prompt
 * sections name the protected paths (docs/security.md#protected-paths) and
 * say where commands run: a container or pod, the workspace read-only, no network.
 */
export function engineShellModule(options: EngineSessionModuleOptions): PluginModule {
  const config: ResolvedContainerConfig = resolveContainerConfig(options.container);
  const executor = resolveExecutorConfig({ cwd: options.workspace, ...options.executor });
  const engine = options.engine;
  // A warm pool cannot serve shared sessions: refused here, at composition, not on the first session.
  assertSharedPoolable(config, options.sharedSessions === true);
  return new PluginModule('shell:container', (module) => {
    const { bind } = module;
    bind(ContainerConfig).toConstantValue(config);
    bindPromptSection(bind, { name: 'sandbox:protected-paths', order: 107, text: protectedPathsPrompt(config.protectedPaths) });
    bindPromptSection(bind, { ...WHERE_PROMPT_SECTION, text: containerWherePrompt(whereFacts(config, engine, options.workspaceReadOnly ?? false)) });
    bind(ExecutorConfig).toConstantValue(Object.freeze({ cwd: options.workspace, ...options.executor }));
    // Its client is an optional package: a missing one fails createHost here, not the first command.
    engine.assertInstalled?.();
    bind(ContainerEngine).toConstantValue(engine);
    bind(ExecutionSite).toConstantValue('container');
    bindReadinessCheck(module, (get) => engineReadinessCheck(get(ContainerEngine)));
    bind(SessionContainersToken)
      .toDynamicValue(
        (ctx) =>
          new SessionContainers(ctx.get(ContainerEngine), config, {
            ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
            workspaceReadOnly: options.workspaceReadOnly ?? false,
            maxRetainedSpillBytes: executor.maxRetainedSpillBytes,
            keepSpills: executor.keepSpills,
            shared: options.sharedSessions === true,
          }),
      )
      .inSingletonScope()
      .onDeactivation((containers) => containers.dispose());
    bindSeam(bind, ShellExecutor)
      .toDynamicValue((ctx) => new ContainerShellExecutor(ctx.get(SessionContainersToken), executor, optionalRedactor(ctx)))
      .inSingletonScope()
      .onDeactivation((shell) => (shell as ContainerShellExecutor).dispose());
  });
}

/** The persistent shell in the session's container (needs `containerShellModule`). */
export function containerTerminalModule(config: Partial<BashPtyConfig> = {}): PluginModule {
  const resolved = resolveBashPtyConfig(config);
  return new PluginModule('terminal:container', (options) => {
    options.bind(TerminalBackend)
      .toDynamicValue((ctx) => {
        const containers = ctx.get(SessionContainersToken);
        const local = containers.engine.localPids ?? containers.engine.endpoint.startsWith('unix://');
        return new ContainerTerminalBackend(containers, resolved, local, optionalRedactor(ctx));
      })
      .inSingletonScope();
    bindTerminalService(options);
  });
}

/** The composition's redactor, when one is bound (every local environment binds one). */
function optionalRedactor(ctx: ResolutionContext): Redactor | undefined {
  return ctx.get(Redactor, { optional: true });
}

/**
 * What the prompt says about where commands run. A pod's network is the
 * cluster's (its NetworkPolicy lets egress out by default), never the
 * container config's; a container has none on `network: none` or on its own
 * session network without egress.
 */
function whereFacts(config: ResolvedContainerConfig, engine: ContainerEngine, workspaceReadOnly: boolean) {
  const unit = engine.sessionUnit ?? 'container';
  const network = unit === 'pod' || !(config.network === 'none' || (config.network === 'session' && config.egress === 'none'));
  return { unit, workspaceReadOnly, network };
}
