import { bindPromptSection, bindTool } from '../../core/contributions.js';
import { PluginModule } from '../../core/plugin-module.js';
import { TaskCompletionNotifier } from './task-completion-notifier.js';
import { TaskKillTool } from './task-kill.tool.js';
import { TaskListTool } from './task-list.tool.js';
import { TaskOutputTool } from './task-output.tool.js';
import { TASKS_PROMPT_SECTION } from './task-prompt-section.js';

/**
 * The task tools as a plugin: `task_output`, `task_list`, `task_kill` (each
 * requires a `TaskRuntime`), the completion notifier they share, and the
 * `tool:tasks` prompt section.
 */
export function taskToolsModule(): PluginModule {
  return new PluginModule('tools:tasks', ({ bind }) => {
    bindTool(bind, TaskOutputTool);
    bindTool(bind, TaskListTool);
    bindTool(bind, TaskKillTool);
    bind(TaskCompletionNotifier)
      .toSelf()
      .inSingletonScope()
      .onDeactivation((notifier) => notifier.dispose());
    bindPromptSection(bind, TASKS_PROMPT_SECTION);
  });
}
