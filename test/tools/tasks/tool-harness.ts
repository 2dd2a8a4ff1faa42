import type { CallContext, SessionContext } from '../../../src/core/tool-contract.js';
import { LocalTaskRuntime } from '../../../src/providers/tasks/local-task-runtime.js';
import { TaskCompletionNotifier } from '../../../src/tools/tasks/task-completion-notifier.js';
import { TaskKillTool } from '../../../src/tools/tasks/task-kill.tool.js';
import { TaskListTool } from '../../../src/tools/tasks/task-list.tool.js';
import { TaskOutputTool } from '../../../src/tools/tasks/task-output.tool.js';

let calls = 0;

/** A hand-made call context for `run()`. */
export function callContext(session?: SessionContext, signal: AbortSignal = new AbortController().signal): CallContext {
  return { session, signal, callId: `call-${++calls}` };
}

/** The three tools over one runtime and one shared notifier, as the module wires them. */
export function taskTools(runtime = new LocalTaskRuntime()) {
  const notifier = new TaskCompletionNotifier();
  return {
    runtime,
    notifier,
    output: new TaskOutputTool(runtime, notifier),
    list: new TaskListTool(runtime, notifier),
    kill: new TaskKillTool(runtime, notifier),
  };
}

export function textOf(result: { content: Array<{ text: string }> }): string {
  return result.content.map((c) => c.text).join('\n');
}
