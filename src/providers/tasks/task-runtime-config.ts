import { DEFAULT_TASK_RUNTIME_CONFIG, type TaskRuntimeConfig } from './task-runtime.js';

const KNOWN_KEYS: ReadonlySet<string> = new Set(Object.keys(DEFAULT_TASK_RUNTIME_CONFIG));

/**
 * Fills defaults over `DEFAULT_TASK_RUNTIME_CONFIG` (keys set to undefined
 * count as absent) and rejects bad values and unknown keys with a message
 * naming the field, so a broken or misspelt config fails at composition
 * instead of silently running with the default.
 */
export function resolveTaskRuntimeConfig(config: Partial<TaskRuntimeConfig> | undefined): TaskRuntimeConfig {
  if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config))) {
    throw new Error(`invalid task runtime config: expected an object, got ${String(config)}`);
  }
  for (const key of Object.keys(config ?? {})) {
    if (!KNOWN_KEYS.has(key)) throw new Error(`invalid task runtime config: ${key} is not a known key`);
  }
  const limit = config?.maxConcurrentTasksPerOwner ?? DEFAULT_TASK_RUNTIME_CONFIG.maxConcurrentTasksPerOwner;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw new Error(
      `invalid task runtime config: maxConcurrentTasksPerOwner must be a positive integer, got ${String(limit)}`,
    );
  }
  return Object.freeze({ maxConcurrentTasksPerOwner: limit });
}
