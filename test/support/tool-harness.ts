import { createHost, replace } from '../../src/container/create-host.js';
import type { CallContext, CallPresentation, ResultPresentation, SessionContext, ToolResult } from '../../src/core/tool-contract.js';
import { LocalTaskRuntime } from '../../src/providers/tasks/local-task-runtime.js';
import { TaskRuntime } from '../../src/providers/tasks/task-runtime.js';
import { testingEnvironment } from '../../src/testing.js';
import type { ToolValue } from '../../src/tools/builtin-tool-values.js';

let calls = 0;

/** A hand-made call context, as a transport builds one. */
export function callContext(session?: SessionContext, signal: AbortSignal = new AbortController().signal): CallContext {
  return { session, signal, callId: `call-${++calls}` };
}

/** One tool as the host runs it (validation, the pipeline) and presents it. */
export interface HostedTool<V = unknown> {
  run(args: unknown, ctx: CallContext): Promise<ToolResult<V>>;
  presentCall(args: unknown): CallPresentation | undefined;
  presentResult(result: ToolResult): ResultPresentation | undefined;
}

/**
 * The three task tools composed the way a package user tests them: the
 * testing environment with `runtime` swapped in by `replace()`; the module
 * wires them to one shared notifier.
 */
export async function taskTools(runtime = new LocalTaskRuntime()) {
  const host = await createHost(...testingEnvironment(), replace(TaskRuntime, runtime));
  const tool = <N extends string>(name: N): HostedTool<ToolValue<N>> => ({
    run: (args, ctx) => host.invoke<ToolValue<N>>(name, args, ctx),
    presentCall: (args) => host.present(name, args).call,
    presentResult: (result) => host.present(name, undefined, result).result,
  });
  return { host, runtime, output: tool('task_output'), list: tool('task_list'), kill: tool('task_kill') };
}

/** A tool failure as the host reports it: one `Error: …` block containing `message`, `isError` set. */
export function failure(message: string) {
  return { isError: true, content: [{ type: 'text', text: expect.stringContaining(`Error: ${message}`) }] };
}

export function textOf(result: { content: Array<{ text: string }> }): string {
  return result.content.map((c) => c.text).join('\n');
}
