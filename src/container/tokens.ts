/**
 * Every injection token of the host, in one place. Each seam's token lives
 * beside its interface (same name, typed); this module gathers them so a
 * composition root imports from one file.
 */
export { ShellExecutor, ExecutorConfig } from '../providers/shell/shell-executor.js';
export { EnvContributor, EnvRegistry } from '../providers/env/env-registry.js';
export { TaskRuntime, TaskRuntimeConfig } from '../providers/tasks/task-runtime.js';
export { TerminalService, TerminalBackend } from '../providers/terminal/terminal-service.js';
export { ApprovalService, ApprovalAnswerer } from '../providers/approval/approval-service.js';
export { SandboxPolicy, SandboxProvider } from '../providers/sandbox/sandbox-policy.js';
export { Confinement } from '../providers/sandbox/confinement.js';
export { SandboxConfig } from '../providers/sandbox/sandbox-config.js';
export { Redactor, RedactionConfig } from '../providers/output-filter/redactor.js';
export { ApprovalConfig } from '../providers/approval/approval-config.js';
export { CommandPolicy } from '../providers/approval/command-policy.js';
export { Logger, Clock } from '../providers/logging/logger.js';
export { HostConfig } from './host-config.js';
export { PromptSection } from './prompt-section.js';
export { ToolClass } from './contributions.js';

import type { ServiceIdentifier } from 'inversify';
import { ShellExecutor } from '../providers/shell/shell-executor.js';
import { EnvRegistry } from '../providers/env/env-registry.js';
import { TaskRuntime } from '../providers/tasks/task-runtime.js';
import { TerminalService } from '../providers/terminal/terminal-service.js';
import { ApprovalService } from '../providers/approval/approval-service.js';
import { CommandPolicy } from '../providers/approval/command-policy.js';
import { SandboxPolicy, SandboxProvider } from '../providers/sandbox/sandbox-policy.js';
import { Confinement } from '../providers/sandbox/confinement.js';
import { Logger, Clock } from '../providers/logging/logger.js';
import { HostConfig } from './host-config.js';
import { Redactor } from '../providers/output-filter/redactor.js';

/** Seams that take exactly one provider: a second binding fails the load. */
export const SINGLE_PROVIDER_TOKENS: ReadonlySet<ServiceIdentifier> = new Set<ServiceIdentifier>([
  ShellExecutor,
  EnvRegistry,
  TaskRuntime,
  TerminalService,
  ApprovalService,
  CommandPolicy,
  SandboxPolicy,
  SandboxProvider,
  Confinement,
  Redactor,
  Logger,
  Clock,
  HostConfig,
]);

/** A readable name for a token: `ShellExecutor` for `Symbol.for('dsh.ShellExecutor')`. */
export function tokenName(token: ServiceIdentifier): string {
  if (typeof token === 'symbol') return (token.description ?? 'symbol').replace(/^dsh\./, '');
  if (typeof token === 'function') return token.name || 'anonymous class';
  return String(token);
}
