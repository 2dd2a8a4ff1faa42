import type { BashResultValue } from './bash/bash.tool.js';
import type { PersistentBashValue } from './persistent-bash/persistent-bash-render.js';
import type { TaskKillValue } from './tasks/task-kill.tool.js';
import type { TaskListValue } from './tasks/task-list.tool.js';
import type { TaskOutputValue } from './tasks/task-output.tool.js';

/**
 * The `value` of each built-in tool's result, by tool name. `bash` is the
 * one-shot tool or the persistent one, whichever the composition mounts:
 * `kind: 'background'` is a one-shot background start; among foreground
 * values `'stdout' in value` is the one-shot tool, `'output' in value` the
 * persistent shell.
 */
export interface BuiltinToolValues {
  bash: BashResultValue | PersistentBashValue;
  task_output: TaskOutputValue;
  task_list: TaskListValue;
  task_kill: TaskKillValue;
}

/** The result value type of the tool named `N`: typed for built-in tools, `unknown` for any other name. */
export type ToolValue<N extends string> = N extends keyof BuiltinToolValues ? BuiltinToolValues[N] : unknown;
