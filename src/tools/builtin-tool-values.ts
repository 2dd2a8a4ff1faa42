import type { BashArgs } from './bash/bash-args.js';
import type { BashResultValue } from './bash/bash.tool.js';
import type { PersistentBashArgs } from './persistent-bash/persistent-bash-args.js';
import type { PersistentBashValue } from './persistent-bash/persistent-bash-render.js';
import type { TaskKillValue } from './tasks/task-kill.tool.js';
import type { TaskListValue } from './tasks/task-list.tool.js';
import type { TaskOutputValue } from './tasks/task-output.tool.js';
import type { TaskKillArgs, TaskListArgs, TaskOutputArgs } from './tasks/task-args.js';

/**
 * The `value` of each built-in tool's result, by tool name. `bash` is the
 * one-shot tool or the persistent one, whichever the composition mounts:
 * `kind: 'background'` is a one-shot background start; a foreground value
 * says which shell ran it: `shell: 'oneshot'` or `shell: 'persistent'`.
 */
export interface BuiltinToolValues {
  bash: BashResultValue | PersistentBashValue;
  /** The persistent shell beside the one-shot `bash` (`shell: 'both'`, default name). */
  bash_persistent: PersistentBashValue;
  task_output: TaskOutputValue;
  task_list: TaskListValue;
  task_kill: TaskKillValue;
}


/** Plain data of an argument class: what a caller writes, without methods. */
type ArgsOf<T> = { readonly [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: T[K] };

/**
 * The arguments of each built-in tool, by tool name, as `session.call` takes
 * them (the tool still validates them at run time: a caller typing them as
 * `unknown` gets the same `Error: …` results).
 */
export interface BuiltinToolArgs {
  bash: ArgsOf<BashArgs> | ArgsOf<PersistentBashArgs>;
  bash_persistent: ArgsOf<PersistentBashArgs>;
  task_output: ArgsOf<TaskOutputArgs>;
  task_list: ArgsOf<TaskListArgs>;
  task_kill: ArgsOf<TaskKillArgs>;
}

export type { ToolArgs, ToolValue } from '../core/tool-types.js';

// The built-in tools' types, added to the host's name-keyed maps (the host itself imports no tool).
declare module '../core/tool-types.js' {
  interface ToolValueTypes extends BuiltinToolValues {}
  interface ToolArgTypes extends BuiltinToolArgs {}
}
