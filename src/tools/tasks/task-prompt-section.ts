import type { PromptSection } from '../../core/prompt-section.js';

/** Guidance shown while `task_output` is active (docs/contract.md §4.3). */
export const TASKS_PROMPT_SECTION: PromptSection = Object.freeze({
  name: 'tool:tasks',
  order: 110,
  tool: 'task_output',
  text: [
    'Background tasks: keep track of every task id you start.',
    'You get a notice when a task finishes, so do not busy-poll task_output or sleep while waiting; do other work instead.',
    'Before your final answer, collect the output of tasks that still matter with task_output and stop the ones that no longer matter with task_kill.',
  ].join(' '),
});
