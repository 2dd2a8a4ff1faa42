import type { PluginModule } from '../container/plugin-module.js';
import type { ApprovalConfig } from '../providers/approval/approval-config.js';
import { approvalAnswerersModule, approvalModule } from '../providers/approval/approval.module.js';
import type { ApprovalAnswerer } from '../providers/approval/approval-service.js';
import type { SandboxConfig } from '../providers/sandbox/sandbox-config.js';
import { sandboxedShellModule, sandboxModule } from '../providers/sandbox/sandbox.module.js';
import type { SandboxMode } from '../providers/shell/shell-executor.js';
import { localEnvironment, type EnvironmentOptions } from './local.environment.js';

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
  };
  readonly approval?: Partial<ApprovalConfig>;
  /** Approval answerers, consulted in order (the MCP server adds its elicitation answerer itself). */
  readonly answerers?: readonly ApprovalAnswerer[];
}

/**
 * The local composition with every one-shot command confined: the local
 * list with its executor swapped for `SandboxedShellExecutor`, plus the
 * sandbox policy and bwrap provider, and the approval service that gates
 * escalation. Without a usable bwrap every confined call fails closed.
 * The persistent shell is confined too: its bash runs under the same
 * provider, in the session's mode, for the life of the shell.
 */
export function sandboxedEnvironment(options: SandboxedEnvironmentOptions = {}): PluginModule[] {
  const { sandbox = {}, approval, answerers = [], ...local } = options;
  const config: Partial<SandboxConfig> = { fallbackRoot: local.workspace, ...sandbox };
  const modules = localEnvironment(local).map((module) =>
    module.name === 'shell:local' ? sandboxedShellModule({ cwd: local.workspace, ...local.executor }) : module,
  );
  if (!modules.some((module) => module.name === 'shell:sandboxed')) {
    throw new Error('sandboxedEnvironment: the local composition has no "shell:local" module to confine');
  }
  modules.push(sandboxModule(config), approvalModule(approval));
  if (answerers.length > 0) modules.push(approvalAnswerersModule(answerers));
  return modules;
}
