import type { PluginModule } from '../core/plugin-module.js';
import type { ApprovalConfig } from '../providers/policy/approval/approval-config.js';
import { approvalAnswerersModule, approvalModule } from '../providers/policy/approval/approval.module.js';
import type { ApprovalAnswerer } from '../providers/policy/approval/approval-service.js';
import type { ResourceLimits } from '../providers/backends/bwrap/resource-limits.js';
import type { SandboxConfig } from '../providers/backends/bwrap/sandbox-config.js';
import { sandboxModule } from '../providers/backends/bwrap/sandbox.module.js';
import { checkNotSystemRoot } from '../providers/backends/bwrap/workspace-pin.js';
import type { SandboxMode } from '../core/sandbox-mode.js';
import { localEnvironment, type EnvironmentOptions } from './local.environment.js';
import { checkOptionKeys, LOCAL_OPTION_KEYS } from './option-keys.js';

export type { SandboxMode };

/** The local options plus the sandbox and approval settings. */
export interface SandboxedEnvironmentOptions extends EnvironmentOptions {
  readonly sandbox?: {
    /** Deployment default mode. Default `read-only`. */
    readonly mode?: SandboxMode;
    /** False: confined commands get no network (`--unshare-net`). Default true. */
    readonly network?: boolean;
    /** Root for calls without a session cwd. Default `workspace`, else the process cwd. */
    readonly fallbackRoot?: string;
    /** The bwrap binary. Default `bwrap` on PATH. */
    readonly bwrapPath?: string;
    /** Per confined call (per persistent shell): `processes`, `memory`, `openFiles`. Defaults in resource-limits.ts. */
    readonly limits?: Partial<ResourceLimits>;
    /** Paths inside a writable workspace kept read-only. Default `.git`, `.envrc`, `.vscode` (docs/security.md#protected-paths). */
    readonly protectedPaths?: readonly string[];
  };
  readonly approval?: Partial<ApprovalConfig>;
  /** Approval answerers, consulted in order (the MCP server adds its elicitation answerer itself). */
  readonly answerers?: readonly ApprovalAnswerer[];
}

/**
 * The local composition plus the sandbox seams (`sandboxModule`: policy,
 * bwrap provider and the `Confinement` both shells confine through) and the
 * approval service that gates escalation. Every command — one-shot,
 * background, and the persistent shell for its life — runs confined in the
 * session's mode; without a usable bwrap every confined call fails closed.
 * Throws when a confined default mode would get a system directory (`/`,
 * `/usr`, the home directory…) as its workspace.
 */
export function sandboxedEnvironment(options: SandboxedEnvironmentOptions = {}): PluginModule[] {
  checkOptionKeys('sandboxedEnvironment', options, [...LOCAL_OPTION_KEYS, 'sandbox', 'answerers']);
  const { sandbox = {}, approval, answerers = [], ...local } = options;
  // Partial limits are completed from the defaults by resolveSandboxConfig.
  const config = { fallbackRoot: local.workspace, ...sandbox } as Partial<SandboxConfig>;
  if ((sandbox.mode ?? 'read-only') !== 'danger-full-access') {
    checkNotSystemRoot(config.fallbackRoot ?? process.cwd());
  }
  const modules = localEnvironment(local);
  modules.push(sandboxModule(config), approvalModule(approval));
  if (answerers.length > 0) modules.push(approvalAnswerersModule(answerers));
  return modules;
}
