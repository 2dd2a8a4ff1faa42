import { describeValue } from '../../../core/describe-value.js';

/** Limits on everything one confined call (or one persistent shell) starts. */
export interface ResourceLimits {
  /** Processes and threads at once (cgroup `pids.max`). */
  readonly processes: number;
  /** Memory, as configured: bytes, or a size such as `512m`, `4g` (cgroup memory limit). */
  readonly memory: string;
  /** Open files per process (RLIMIT_NOFILE, soft and hard). */
  readonly openFiles: number;
}

/**
 * Defaults that stop a fork bomb or a runaway allocation long before the host
 * suffers, and leave room for a parallel build (threads count as processes).
 */
export const DEFAULT_RESOURCE_LIMITS: ResourceLimits = Object.freeze({ processes: 2048, memory: '4g', openFiles: 8192 });

const SIZE = /^(\d+)([kmgt]?)$/i;
const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** Bytes of a size (`2g`, `512m`, `1048576`); undefined when it is not one. */
export function sizeInBytes(size: string): number | undefined {
  const match = SIZE.exec(size);
  if (!match) return undefined;
  const bytes = Number(match[1]) * UNITS[match[2]!.toLowerCase()]!;
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/**
 * Checks `sandbox.limits` over the defaults; a missing key keeps its default.
 * Returns the offending key and its problem, or the limits.
 */
export function resolveResourceLimits(given: unknown): ResourceLimits | { key: string; problem: string } {
  if (given === undefined) return DEFAULT_RESOURCE_LIMITS;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    return { key: 'limits', problem: `must be an object with processes, memory, openFiles; got ${describeValue(given)}` };
  }
  const entries = given as Record<string, unknown>;
  const unknown = Object.keys(entries).filter((key) => !(key in DEFAULT_RESOURCE_LIMITS));
  if (unknown.length > 0) return { key: `limits.${unknown[0]}`, problem: 'is not a known key (known: processes, memory, openFiles)' };
  const processes = entries.processes ?? DEFAULT_RESOURCE_LIMITS.processes;
  if (!isWholeNumber(processes, 16, 4_194_304)) {
    return { key: 'limits.processes', problem: `must be a whole number from 16 to 4194304, got ${describeValue(processes)}` };
  }
  const openFiles = entries.openFiles ?? DEFAULT_RESOURCE_LIMITS.openFiles;
  if (!isWholeNumber(openFiles, 64, 1_048_576)) {
    return { key: 'limits.openFiles', problem: `must be a whole number from 64 to 1048576, got ${describeValue(openFiles)}` };
  }
  const memory = entries.memory ?? DEFAULT_RESOURCE_LIMITS.memory;
  const text = typeof memory === 'number' && Number.isSafeInteger(memory) ? String(memory) : memory;
  const bytes = typeof text === 'string' ? sizeInBytes(text) : undefined;
  if (typeof text !== 'string' || bytes === undefined || bytes < 64 * 1024 ** 2) {
    return { key: 'limits.memory', problem: `must be a size of at least 64m (bytes, or a number with k, m, g or t), got ${describeValue(memory)}` };
  }
  return Object.freeze({ processes, memory: text, openFiles });
}

function isWholeNumber(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
