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
import { CallPlanner, type ExecutionPlan } from '../../providers/policy/planner/call-planner.js';
import { ShellExecutor, type BackgroundProcess, type ExecSpec, type RunResult } from '../../providers/exec/shell/shell-executor.js';
import { messageOf } from '../../core/describe-value.js';
import { TaskRuntime } from '../../providers/tasks/task-runtime.js';
import { BashArgs } from './bash-args.js';
import { BASH_OUTPUT_SCHEMA } from './bash-output-schema.js';
import { BashToolConfig, ON_CANCEL_META, resolveBashToolConfig } from './bash-config.js';
import { presentBashCall, presentBashResult } from './bash-present.js';
import { cancelledToTaskNotice, renderForeground } from './bash-render.js';
import { oneShotValue, type OneShotResult } from './bash-result-value.js';

export type BashResultValue =
  | ({ readonly kind: 'foreground'; readonly shell: 'oneshot' } & OneShotResult)
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
})
export class BashTool implements ToolInstance<BashArgs> {
  private readonly config: BashToolConfig;

  constructor(
    @inject(ShellExecutor) private readonly executor: ShellExecutor,
    @inject(CallPlanner) private readonly planner: CallPlanner,
    @inject(TaskRuntime) @optional() private readonly tasks?: TaskRuntime,
    @inject(BashToolConfig) @optional() config?: Partial<BashToolConfig>,
  ) {
    this.config = resolveBashToolConfig(config);
  }

  adjustSchema(schema: JsonSchema): JsonSchema {
    let adjusted = schema;
    if (!this.config.enableRunInBackground) adjusted = withoutProperty(adjusted, 'run_in_background');
    if (!this.planner.escalation.offered) {
      adjusted = withoutProperty(withoutProperty(adjusted, 'sandbox_permissions'), 'justification');
    }
    return adjusted;
  }

  hiddenArgumentReasons(): Readonly<Record<string, string>> {
    const refusal = this.planner.escalation.refusal;
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
    const plan = await this.planner.plan(
      {
        tool: 'bash',
        command: args.command,
        workdir: args.workdir,
        timeoutMs: args.timeoutMs,
        background,
        ...(args.sandbox_permissions === undefined && args.justification === undefined
          ? {}
          : { escalation: { mode: args.sandbox_permissions, justification: args.justification } }),
      },
      ctx,
    );
    // The planning may have let an abort land: nothing has run yet, so nothing starts.
    if (ctx.signal.aborted) return errorResult('tool call aborted');
    return background ? this.startBackground(args, plan.exec, ctx) : this.runForeground(args, plan, ctx);
  }

  presentCall(args: unknown): CallPresentation | undefined {
    return presentBashCall(args);
  }

  presentResult(result: ToolResult): ResultPresentation | undefined {
    return presentBashResult(result);
  }

  private async runForeground(args: BashArgs, plan: ExecutionPlan, ctx: CallContext): Promise<ToolResult<BashResultValue>> {
    const spec = plan.exec;
    let ran: RunResult;
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
      ran = await this.executor.run(spec, {
        signal: ctx.signal,
        onProgress: ctx.onProgress ? withElapsed(ctx.onProgress) : undefined,
        ...(keepOnTimeout ? { keepOnTimeout, promoteAfterMs: this.config.promoteAfterMs, promoteOnAbort: this.promotesOnCancel(ctx) } : {}),
      });
    } catch (error) {
      // An executor refuses a signal that aborted before its spawn: that is still this call's abort.
      if (ctx.signal.aborted) return errorResult('tool call aborted');
      throw error;
    }
    if (ran.aborted) return errorResult('tool call aborted');
    const result = oneShotValue(ran, plan.sandbox);
    const escalationAdvertised = this.planner.escalation.advertised;
    if (result.continuation && tasks) return this.moveToBackground(result, result.continuation, tasks, args, ctx);
    const rendered = renderForeground(result, { escalationAdvertised, ...(notMoved === undefined ? {} : { notMoved }) });
    return textResult(rendered, { kind: 'foreground', shell: 'oneshot', ...result });
  }

  /** Whether a cancel of this call promotes it: the call's `_meta` says, else `bash.onCancel` (docs/contract.md §14). */
  private promotesOnCancel(ctx: CallContext): boolean {
    const asked = ctx.metadata?.[ON_CANCEL_META];
    return asked === 'promote' || (asked !== 'kill' && this.config.onCancel === 'promote');
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
    result: OneShotResult,
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
      // Moved before its timeout: at the caller's cancel, or at the promotion time (bash.promoteAfterMs).
      const early = this.config.promoteAfterMs > 0 && this.config.promoteAfterMs < result.timeoutMs && result.durationMs < result.timeoutMs;
      const afterMs = ctx.signal.aborted ? Math.round(result.durationMs) : early ? this.config.promoteAfterMs : result.timeoutMs;
      // A cancelled call's result reaches no one: the model hears of its task on its next turn.
      if (ctx.signal.aborted) ctx.session?.notify(cancelledToTaskNotice(snapshot.id, afterMs));
      const text = renderForeground(soFar, { movedTo: { taskId: snapshot.id, afterMs } });
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
}
