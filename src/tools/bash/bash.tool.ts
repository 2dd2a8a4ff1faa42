import path from 'node:path';
import { inject, optional } from 'inversify';
import { Tool } from '../../core/tool.decorator.js';
import {
  errorResult,
  withElapsed,
  textResult,
  ToolError,
  type CallContext,
  type CallPresentation,
  type JsonSchema,
  type ResultPresentation,
  type ToolInstance,
  type ToolResult,
} from '../../core/tool-contract.js';
import { withoutProperty } from '../../core/schema-properties.js';
import { ApprovalService } from '../../providers/approval/approval-service.js';
import { EnvRegistry } from '../../providers/env/env-registry.js';
import { SandboxPolicy } from '../../providers/sandbox/sandbox-policy.js';
import { ShellExecutor, type BackgroundProcess, type ExecSpec, type RunResult } from '../../providers/shell/shell-executor.js';
import { withDshEnv } from '../../providers/shell/exec-spec-resolver.js';
import { messageOf } from '../../core/describe-value.js';
import { enforceCommandPolicy } from '../../providers/approval/command-check.js';
import { CommandPolicy } from '../../providers/approval/command-policy.js';
import { TaskRuntime } from '../../providers/tasks/task-runtime.js';
import { BashArgs } from './bash-args.js';
import { BASH_OUTPUT_SCHEMA } from './bash-output-schema.js';
import { BashToolConfig, resolveBashToolConfig } from './bash-config.js';
import { resolveCallSandbox } from './bash-escalation.js';
import { presentBashCall, presentBashResult } from './bash-present.js';
import { renderForeground } from './bash-render.js';

export type BashResultValue =
  | ({ readonly kind: 'foreground'; readonly shell: 'oneshot' } & RunResult)
  | { readonly kind: 'background'; readonly taskId: string };

@Tool({
  name: 'bash',
  title: 'Run a shell command',
  // Commands can change or delete anything the user can, and reach the network.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  outputSchema: BASH_OUTPUT_SCHEMA,
  description:
    'Run a bash command (bash -c) and return its output. Each call is a fresh non-interactive shell: ' +
    'state such as cd or exported variables does not persist, so use workdir instead of cd. ' +
    'Managed $DSH_* variables identify the session.',
  args: BashArgs,
  requires: [ShellExecutor, EnvRegistry],
  optional: [TaskRuntime, ApprovalService, SandboxPolicy, BashToolConfig, CommandPolicy],
})
export class BashTool implements ToolInstance<BashArgs> {
  private readonly config: BashToolConfig;

  constructor(
    @inject(ShellExecutor) private readonly executor: ShellExecutor,
    @inject(EnvRegistry) private readonly env: EnvRegistry,
    @inject(TaskRuntime) @optional() private readonly tasks?: TaskRuntime,
    @inject(ApprovalService) @optional() private readonly approval?: ApprovalService,
    @inject(SandboxPolicy) @optional() private readonly policy?: SandboxPolicy,
    @inject(BashToolConfig) @optional() config?: Partial<BashToolConfig>,
    @inject(CommandPolicy) @optional() private readonly commands?: CommandPolicy,
  ) {
    this.config = resolveBashToolConfig(config);
  }

  adjustSchema(schema: JsonSchema): JsonSchema {
    let adjusted = schema;
    if (!this.config.enableRunInBackground) adjusted = withoutProperty(adjusted, 'run_in_background');
    if (this.executor.sandboxMode === undefined) {
      adjusted = withoutProperty(withoutProperty(adjusted, 'sandbox_permissions'), 'justification');
    }
    return adjusted;
  }

  hiddenArgumentReasons(): Readonly<Record<string, string>> {
    const refusal = this.executor.escalationRefusal;
    return refusal ? { sandbox_permissions: refusal, justification: refusal } : {};
  }

  async run(args: BashArgs, ctx: CallContext): Promise<ToolResult<BashResultValue>> {
    const background = args.run_in_background === true;
    if (background && !this.config.enableRunInBackground) {
      throw new ToolError('background execution is disabled for this bash tool');
    }
    if (background && !this.tasks) {
      throw new ToolError('background tasks unavailable: load a task runtime and the task tools');
    }
    // Admission before the approval prompt: never ask the user for a start that would be refused.
    if (background) this.tasks!.preflight(ctx.session);
    const mode = this.policy?.resolve({ session: ctx.session }).mode ?? this.executor.sandboxMode;
    await enforceCommandPolicy(this.commands, { tool: 'bash', command: args.command, workdir: this.workdirFor(args, ctx), sandboxMode: mode }, ctx);
    const sandbox = await resolveCallSandbox(args, ctx, {
      executor: this.executor,
      approval: this.approval,
      policy: this.policy,
      workdir: this.workdirFor(args, ctx),
    });
    // The await above may have let an abort land: nothing has run yet, so nothing starts.
    if (ctx.signal.aborted) return errorResult('tool call aborted');
    const resolved = this.executor.resolve({
      command: args.command,
      workdir: this.workdirFor(args, ctx, sandbox?.workspaceRoot),
      timeoutMs: args.timeoutMs,
      sandboxMode: sandbox?.mode,
      workspaceRoot: sandbox?.workspaceRoot,
      session: ctx.session,
    });
    const dshEnv = this.env.collect({
      session: ctx.session,
      mode: background ? 'background' : 'foreground',
      workdir: resolved.workdir,
    });
    const spec = withDshEnv(resolved, dshEnv);
    return background ? this.startBackground(args, spec, ctx) : this.runForeground(args, spec, ctx);
  }

  presentCall(args: unknown): CallPresentation | undefined {
    return presentBashCall(args);
  }

  presentResult(result: ToolResult): ResultPresentation | undefined {
    return presentBashResult(result);
  }

  private async runForeground(args: BashArgs, spec: ExecSpec, ctx: CallContext): Promise<ToolResult<BashResultValue>> {
    let result: RunResult;
    let notMoved: string | undefined;
    // Only the default timeout may become a hand-over: a timeout the model chose is a hard limit.
    const tasks = this.promotionRuntime(args);
    const keepOnTimeout =
      tasks &&
      ((): boolean => {
        try {
          tasks.preflight(ctx.session);
          return true;
        } catch (error) {
          notMoved = messageOf(error);
          return false;
        }
      });
    try {
      result = await this.executor.run(spec, {
        signal: ctx.signal,
        onProgress: ctx.onProgress ? withElapsed(ctx.onProgress) : undefined,
        ...(keepOnTimeout ? { keepOnTimeout } : {}),
      });
    } catch (error) {
      // An executor refuses a signal that aborted before its spawn: that is still this call's abort.
      if (ctx.signal.aborted) return errorResult('tool call aborted');
      throw error;
    }
    if (result.aborted) return errorResult('tool call aborted');
    const escalationAdvertised = this.executor.sandboxMode !== undefined && this.approval !== undefined;
    if (result.continuation && tasks) return this.moveToBackground(result, result.continuation, tasks, args, ctx);
    const rendered = renderForeground(result, { escalationAdvertised, ...(notMoved === undefined ? {} : { notMoved }) });
    return textResult(rendered, { kind: 'foreground', shell: 'oneshot', ...result });
  }

  /** The task runtime a default timeout hands the command to, when this call may be promoted. */
  private promotionRuntime(args: BashArgs): TaskRuntime | undefined {
    if (args.timeoutMs !== undefined || this.config.onTimeout !== 'promote' || !this.config.enableRunInBackground) return undefined;
    return this.tasks;
  }

  /**
   * Adopts a command kept running past its default timeout as a task. The
   * admission checked at the timeout can be lost before the start (another
   * call of the session started a task meanwhile): then it is killed as the
   * timeout would have, and the result says why it was not moved.
   */
  private async moveToBackground(
    result: RunResult,
    continuation: BackgroundProcess,
    tasks: TaskRuntime,
    args: BashArgs,
    ctx: CallContext,
  ): Promise<ToolResult<BashResultValue>> {
    const { continuation: _handle, ...soFar } = result;
    try {
      const snapshot = await tasks.start({
        owner: ctx.session,
        kind: 'bash',
        label: args.description,
        producer: () => Promise.resolve(continuation),
      });
      const text = renderForeground(soFar, { movedTo: { taskId: snapshot.id, afterMs: result.timeoutMs } });
      return textResult(text, { kind: 'background', taskId: snapshot.id });
    } catch (error) {
      await continuation.kill();
      const outcome = await continuation.done;
      const killed = { ...soFar, timedOut: true, exitCode: outcome.exitCode, signal: outcome.signal };
      return textResult(renderForeground(killed, { notMoved: messageOf(error) }), { kind: 'foreground', shell: 'oneshot', ...killed });
    }
  }

  private async startBackground(args: BashArgs, spec: ExecSpec, ctx: CallContext): Promise<ToolResult<BashResultValue>> {
    const snapshot = await this.tasks!.start({
      owner: ctx.session,
      kind: 'bash',
      label: args.description,
      producer: () => this.executor.start(spec),
    });
    return textResult(`started background task ${snapshot.id}`, { kind: 'background', taskId: snapshot.id });
  }

  /** Session cwd by default; a relative workdir resolves against it (or the sandbox root). */
  private workdirFor(args: BashArgs, ctx: CallContext, workspaceRoot?: string): string | undefined {
    const base = workspaceRoot ?? ctx.session?.cwd;
    if (args.workdir === undefined) return base;
    if (path.isAbsolute(args.workdir) || base === undefined) return args.workdir;
    return path.resolve(base, args.workdir);
  }
}
