import 'reflect-metadata';

// The host and its contribution points.
export { DshHost, type PendingTool, type ToolsChanged } from './container/dsh-host.js';
export { createHost, replace, decorate, type ProviderSpec } from './container/create-host.js';
export { HostSession, type SessionOptions, type CallOptions } from './container/host-session.js';
export { PluginModule } from './core/plugin-module.js';
export { Tool, getToolMeta } from './core/tool.decorator.js';
export { bindTool, bindPromptSection, bindProvider, bindSeam, bindUnavailable, Unavailable, ToolClass } from './core/contributions.js';
export { assemblePrompt, renderPrompt, type AssembledPrompt, type ToolDescriptor } from './container/prompt-assembler.js';
export * from './core/tool-contract.js';
export { tokenName } from './core/token-name.js';
export { bindContributions, contributionsOf, readContributions, type Contributions } from './core/contribution-collector.js';
export { HostConfig } from './core/host-config.js';
export { PromptSection } from './core/prompt-section.js';
export { ReadinessCheck, bindReadinessCheck } from './providers/health/readiness-check.js';
export type { PromptSection as PromptSectionData } from './core/prompt-section.js';

// Seams: each token lives beside its interface (same name, typed); exported only from here.
export { ShellExecutor, ExecutorConfig, ExecSpec } from './providers/exec/shell/shell-executor.js';
export { FallbackPlanner } from './providers/policy/planner/fallback-planner.js';
export { CallPlanner, CallPlannerConfig, ExecutionPlan } from './providers/policy/planner/call-planner.js';
export { EnvContributor, EnvRegistry, type EnvExecution, type EnvKeyDeclaration } from './providers/policy/env/env-registry.js';
export { TaskRuntime, TaskRuntimeConfig } from './providers/tasks/task-runtime.js';
export { TerminalService, TerminalBackend } from './providers/exec/terminal/terminal-service.js';
export { ApprovalService, ApprovalAnswerer, APPROVAL_KINDS, answersKind } from './providers/policy/approval/approval-service.js';
export { SandboxPolicy, SandboxProvider } from './providers/policy/sandbox/sandbox-policy.js';
export { Confinement } from './providers/policy/sandbox/confinement.js';
export { SandboxConfig } from './providers/backends/bwrap/sandbox-config.js';
export { Redactor, RedactionConfig } from './providers/output-filter/redactor.js';
export { ApprovalConfig } from './providers/policy/approval/approval-config.js';
export { CommandPolicy } from './providers/policy/approval/command-policy.js';
export { Logger, Clock } from './providers/logging/logger.js';
export { ToolCallObserver, bindToolCallObserver, CALL_OUTCOMES } from './providers/observability/tool-call-observer.js';
export { AuditSink, auditRecordOf } from './providers/observability/audit-sink.js';
export { TelemetryConfig, DEFAULT_TELEMETRY_CONFIG } from './providers/observability/observability-config.js';
export { HostMetrics } from './providers/observability/host-metrics.js';
export type * from './providers/exec/shell/shell-executor.js';
export type * from './providers/policy/env/env-registry.js';
export type * from './providers/tasks/task-runtime.js';
export type * from './providers/exec/terminal/terminal-service.js';
export type * from './providers/policy/approval/approval-service.js';
export type * from './providers/policy/approval/command-policy.js';
export type * from './providers/policy/sandbox/sandbox-policy.js';
export type * from './providers/policy/sandbox/confinement.js';
export type * from './providers/policy/planner/call-planner.js';
export type { SandboxMode } from './core/sandbox-mode.js';
export { ExecutionSite, executionSiteOf } from './core/execution-site.js';
export type * from './providers/logging/logger.js';
export type * from './providers/observability/tool-call-observer.js';
export type * from './providers/observability/audit-sink.js';
export type { AuditConfig, ObservabilityOptions } from './providers/observability/observability-config.js';
export { buildChildEnv, MODEL_FRIENDLY_ENV } from './providers/exec/process/child-env.js';

// Default providers and their plugins.
export { LocalShellExecutor } from './providers/backends/local/local-shell-executor.js';
export { LocalCallPlanner } from './providers/policy/planner/local-call-planner.js';
export { plannerModule } from './providers/policy/planner/planner.module.js';
export { shellModule } from './providers/backends/local/shell.module.js';
export { LocalEnvRegistry } from './providers/policy/env/local-env-registry.js';
export { envModule, staticEnvModule } from './providers/policy/env/env.module.js';
export { LocalTaskRuntime } from './providers/tasks/local-task-runtime.js';
export { taskRuntimeModule } from './providers/tasks/tasks.module.js';
export { terminalModule } from './providers/backends/pty/terminal.module.js';
export { outputFilterModule } from './providers/output-filter/output-filter.module.js';
export { PatternRedactor } from './providers/output-filter/pattern-redactor.js';
export { resolveRedactionConfig } from './providers/output-filter/redaction-config.js';
export { DEFAULT_REDACTION_CONFIG, MIN_SECRET_CHARS, type RedactionStream } from './providers/output-filter/redactor.js';
export { LineCollapser, collapseTerminalText } from './providers/output-filter/line-collapse.js';
export { coreModule } from './plugins/core.module.js';
export { JsonLinesAuditSink } from './providers/observability/json-lines-audit-sink.js';
export { bindObservability } from './providers/observability/observability.module.js';
export { callStep, type CallStep } from './core/call-scope.js';
export type { CallPlan } from './core/call-plan.js';
export { DEFAULT_SANDBOX_CONFIG, SANDBOX_MODES, isSandboxMode, resolveSandboxConfig } from './providers/backends/bwrap/sandbox-config.js';
export { DEFAULT_PROTECTED_PATHS } from './core/protected-paths.js';
export { hideServerFile, forgetServerFile } from './core/server-files.js';
export { LocalSandboxPolicy } from './providers/backends/bwrap/local-sandbox-policy.js';
export { BwrapSandboxProvider } from './providers/backends/bwrap/bwrap-sandbox-provider.js';
export { SandboxConfinement } from './providers/backends/bwrap/sandbox-confinement.js';
export { SandboxUnavailableError, SANDBOX_UNAVAILABLE } from './providers/policy/sandbox/sandbox-policy.js';
export { sandboxModule } from './providers/backends/bwrap/sandbox.module.js';
export { LocalApprovalService, ApprovalAnswerers } from './providers/policy/approval/local-approval-service.js';
export { DEFAULT_APPROVAL_CONFIG, APPROVAL_POLICIES } from './providers/policy/approval/approval-config.js';
export { approvalModule, approvalAnswerersModule } from './providers/policy/approval/approval.module.js';
export { describeApproval, approvalFacts, type ApprovalFact } from './providers/policy/approval/approval-text.js';
export { refusalMessage } from './providers/policy/approval/approval-refusals.js';
export { escapeForDisplay, quoteForDisplay, escapeJsonForDisplay, lineCount } from './core/display-text.js';
export * from './providers/backends/docker/index.js';
export * from './providers/backends/kubernetes/index.js';
export { LocalCommandPolicy } from './providers/policy/approval/local-command-policy.js';
export { commandParts } from './providers/policy/approval/command-parts.js';
export type { CommandAnalysis, CommandWord } from './providers/policy/approval/command-words.js';
export { judgeCommand } from './providers/policy/approval/command-rules.js';

// Tools.
export { BashTool } from './tools/bash/bash.tool.js';
export { PersistentBashTool } from './tools/persistent-bash/persistent-bash.tool.js';
export { TaskOutputTool } from './tools/tasks/task-output.tool.js';
export { TaskListTool } from './tools/tasks/task-list.tool.js';
export { TaskKillTool } from './tools/tasks/task-kill.tool.js';
// Per-session state for plugin authors (docs/design.md): a key per service, the session's scope, and the per-provider table.
export { ScopeKey, scopeOf, existingScopeOf, type SessionScope, type ScopedSession } from './core/session-scope.js';
export { PerSession } from './core/per-session.js';
export { currentToolCall } from './core/tool-call-context.js';
// The call id, request id and metadata a backend passes with a call (docs/embedding.md, "Call id and metadata").
export { CALL_INFO_LIMITS, type CallInfo, type CallInfoOptions, type CallMetadata } from './core/call-info.js';
export { bashToolModule } from './tools/bash/bash.module.js';
export { BashToolConfig } from './tools/bash/bash-config.js';
export { taskToolsModule } from './tools/tasks/task-tools.module.js';
export { persistentBashModule, type PersistentBashModuleOptions } from './tools/persistent-bash/persistent-bash.module.js';
export type { BashResultValue } from './tools/bash/bash.tool.js';
export type { PersistentBashValue } from './tools/persistent-bash/persistent-bash-render.js';
export type { TaskOutputValue } from './tools/tasks/task-output.tool.js';
export type { TaskListValue } from './tools/tasks/task-list.tool.js';
export type { TaskKillValue } from './tools/tasks/task-kill.tool.js';
export type { BuiltinToolArgs, BuiltinToolValues, ToolArgs, ToolValue } from './tools/builtin-tool-values.js';
// Applications add their own tools' types here by declaration merging (docs/embedding.md, "Typed calls of your own tools").
export type { ToolArgTypes, ToolValueTypes } from './core/tool-types.js';

// Environment modules.
export { localEnvironment, type EnvironmentOptions, type ShellChoice, type ShellToolNames } from './plugins/local.environment.js';
export { renamedTool } from './core/renamed-tool.js';
export { sandboxedEnvironment, type SandboxedEnvironmentOptions } from './plugins/sandboxed.environment.js';
export { containerEnvironment, type ContainerEnvironmentOptions } from './plugins/container.environment.js';
export { kubernetesEnvironment, type KubernetesEnvironmentOptions } from './plugins/kubernetes.environment.js';

// The composition file as a library: the CLI's loader and checks (docs/embedding.md, "Configuration from a file").
export { loadConfigFile, validateConfig } from './plugins/config/config-file.js';
export { configModules } from './plugins/config/config-modules.js';
export { configSchema } from './plugins/config/config-schema.js';
export type { DshConfig } from './plugins/config/dsh-config.js';
export type { EngineSandbox } from './plugins/container.environment.js';

// The MCP server lives in the `dsh-tools/mcp` subpath (src/mcp.ts), so these typings stay light.
