import { configError, mergeConfig } from '../../core/config-merge.js';
import { describeValue } from '../../core/describe-value.js';
import { DEFAULT_TASK_RUNTIME_CONFIG, type TaskRuntimeConfig } from './task-runtime.js';

/**
 * Fills defaults over `DEFAULT_TASK_RUNTIME_CONFIG` (keys set to undefined
 * count as absent) and rejects bad values and unknown keys with a message
 * naming the field, so a broken or misspelt config fails at composition
 * instead of silently running with the default.
 */
export function resolveTaskRuntimeConfig(config: Partial<TaskRuntimeConfig> | undefined): TaskRuntimeConfig {
  const merged = mergeConfig('task runtime', DEFAULT_TASK_RUNTIME_CONFIG, config);
  return Object.freeze({
    maxConcurrentTasksPerOwner: positiveInteger(merged, 'maxConcurrentTasksPerOwner'),
    maxFinishedTasksPerOwner: positiveInteger(merged, 'maxFinishedTasksPerOwner'),
  });
}

function positiveInteger(values: Record<string, unknown>, key: string): number {
  const value = values[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw configError('task runtime', key, `must be a positive integer, got ${describeValue(value)}`);
  }
  return value;
}
