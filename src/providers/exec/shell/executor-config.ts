import path from 'node:path';
import { configError as sharedConfigError, mergeConfig } from '../../../core/config-merge.js';
import { describeValue } from '../../../core/describe-value.js';
import { MAX_TIMER_MS } from '../../../core/timer.js';
import { DEFAULT_EXECUTOR_CONFIG, type ExecutorConfig } from './shell-executor.js';

/** Re-exported where it always was; the one definition is `src/core/timer.ts`. */
export { MAX_TIMER_MS };

const KNOWN_KEYS: ReadonlySet<string> = new Set([
  'cwd',
  'timeoutMs',
  'maxTimeoutMs',
  'maxOutputBytes',
  'maxSpillBytes',
  'maxRetainedSpillBytes',
  'graceMs',
  'allowEnv',
  'shellPath',
  'keepSpills',
  'prestart',
  'prestartIdleMs',
]);

/**
 * Merges a partial executor config over `DEFAULT_EXECUTOR_CONFIG` and checks
 * it, so a bad value fails when the provider loads rather than on the first
 * command. Keys set to `undefined` count as absent. `cwd` comes back absolute.
 * Throws `invalid executor config: <key> ...` on the first problem.
 */
export function resolveExecutorConfig(partial: Partial<ExecutorConfig> | undefined = {}): ExecutorConfig {
  const merged = mergeConfig('executor', DEFAULT_EXECUTOR_CONFIG, partial, KNOWN_KEYS);

  const timeoutMs = integer(merged, 'timeoutMs', 1, MAX_TIMER_MS);
  const maxTimeoutMs = integer(merged, 'maxTimeoutMs', 1, MAX_TIMER_MS);
  const maxOutputBytes = integer(merged, 'maxOutputBytes', 1, Number.MAX_SAFE_INTEGER);
  const maxSpillBytes = integer(merged, 'maxSpillBytes', 1, Number.MAX_SAFE_INTEGER);
  const maxRetainedSpillBytes = integer(merged, 'maxRetainedSpillBytes', 1, Number.MAX_SAFE_INTEGER);
  // 0 is allowed: escalate to SIGKILL immediately.
  const graceMs = integer(merged, 'graceMs', 0, MAX_TIMER_MS);
  if (timeoutMs > maxTimeoutMs) {
    throw configError('timeoutMs', `(${timeoutMs}) must not exceed maxTimeoutMs (${maxTimeoutMs})`);
  }
  if (maxSpillBytes < maxOutputBytes) {
    throw configError('maxSpillBytes', `(${maxSpillBytes}) must be at least maxOutputBytes (${maxOutputBytes})`);
  }

  const allowEnv = merged.allowEnv;
  if (!Array.isArray(allowEnv) || !allowEnv.every((name) => typeof name === 'string' && name !== '')) {
    throw configError('allowEnv', `must be an array of non-empty strings, got ${describeValue(allowEnv)}`);
  }
  const shellPath = merged.shellPath;
  if (typeof shellPath !== 'string' || shellPath === '' || shellPath.includes('\0')) {
    throw configError('shellPath', `must be a non-empty string, got ${describeValue(shellPath)}`);
  }
  if (typeof merged.keepSpills !== 'boolean') {
    throw configError('keepSpills', `must be true or false, got ${describeValue(merged.keepSpills)}`);
  }
  if (typeof merged.prestart !== 'boolean') {
    throw configError('prestart', `must be true or false, got ${describeValue(merged.prestart)}`);
  }
  const prestartIdleMs = integer(merged, 'prestartIdleMs', 1, MAX_TIMER_MS);
  const cwd = merged.cwd;
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '' || cwd.includes('\0'))) {
    throw configError('cwd', `must be a non-empty string, got ${describeValue(cwd)}`);
  }

  return Object.freeze({
    ...(cwd === undefined ? {} : { cwd: path.resolve(cwd) }),
    timeoutMs,
    maxTimeoutMs,
    maxOutputBytes,
    maxSpillBytes,
    maxRetainedSpillBytes,
    graceMs,
    allowEnv: Object.freeze([...allowEnv]),
    shellPath,
    keepSpills: merged.keepSpills,
    prestart: merged.prestart,
    prestartIdleMs,
  });
}

function integer(values: Record<string, unknown>, key: string, min: number, max: number): number {
  const value = values[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const kind = min === 0 ? 'a non-negative integer' : 'a positive integer';
    throw configError(key, `must be ${kind} of at most ${max}, got ${describeValue(value)}`);
  }
  return value;
}

function configError(key: string, problem: string): Error {
  return sharedConfigError('executor', key, problem);
}
