import { configError, mergeConfig } from '../../container/config-merge.js';
import { describeValue } from '../../container/describe-value.js';
import { DEFAULT_TASK_RUNTIME_CONFIG, type TaskRuntimeConfig } from './task-runtime.js';

/**
 * Fills defaults over `DEFAULT_TASK_RUNTIME_CONFIG` (keys set to undefined
 * count as absent) and rejects bad values and unknown keys with a message
 * naming the field, so a broken or misspelt config fails at composition
 * instead of silently running with the default.
 */
export function resolveTaskRuntimeConfig(config: Partial<TaskRuntimeConfig> | undefined): TaskRuntimeConfig {
  const merged = mergeConfig('task runtime', DEFAULT_TASK_RUNTIME_CONFIG, config);
  const limit = merged.maxConcurrentTasksPerOwner;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw configError('task runtime', 'maxConcurrentTasksPerOwner', `must be a positive integer, got ${describeValue(limit)}`);
  }
  return Object.freeze({ maxConcurrentTasksPerOwner: limit });
}
