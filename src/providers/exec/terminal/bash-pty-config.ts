import type { ServiceIdentifier } from 'inversify';
import { mergeConfig } from '../../../core/config-merge.js';
import { MAX_TIMER_MS } from '../../../core/timer.js';

/** Settings of the bash PTY backend; every field optional in config, defaults in `DEFAULT_BASH_PTY_CONFIG`. */
export interface BashPtyConfig {
  /** The bash binary (PATH lookup when bare). */
  readonly shellPath: string;
  /** Env names kept even though they look like credentials. */
  readonly allowEnv: readonly string[];
  /** How long a new shell may take to become ready. */
  readonly startupTimeoutMs: number;
  /** Quiet time of a running command before the foreground job is checked for a terminal read. */
  readonly stdinProbeQuietMs: number;
  /** Upper bound on the interval between later checks while the command stays quiet. */
  readonly stdinProbeMaxIntervalMs: number;
  /** Default characters of one send's output kept in memory (the beginning). */
  readonly scrollbackChars: number;
  readonly cols: number;
  readonly rows: number;
}

const DEFAULT_BASH_PTY_CONFIG: BashPtyConfig = Object.freeze({
  shellPath: 'bash',
  allowEnv: [],
  startupTimeoutMs: 10_000,
  stdinProbeQuietMs: 200,
  stdinProbeMaxIntervalMs: 1_000,
  scrollbackChars: 1_000_000,
  cols: 200,
  rows: 50,
});


const TIMER_KEYS: ReadonlySet<string> = new Set(['startupTimeoutMs', 'stdinProbeQuietMs', 'stdinProbeMaxIntervalMs']);

export const BashPtyConfig: ServiceIdentifier<Partial<BashPtyConfig>> = Symbol.for('dsh.BashPtyConfig');

/** Fills defaults (through the shared merge: an unknown key fails) and rejects nonsense at composition time. */
export function resolveBashPtyConfig(config: Partial<BashPtyConfig> = {}): BashPtyConfig {
  const resolved = mergeConfig('terminal', DEFAULT_BASH_PTY_CONFIG, config) as unknown as BashPtyConfig;
  for (const key of ['startupTimeoutMs', 'stdinProbeQuietMs', 'stdinProbeMaxIntervalMs', 'scrollbackChars', 'cols', 'rows'] as const) {
    const value = resolved[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new Error(`invalid terminal config ${key}: expected a positive number, got ${String(value)}`);
    }
    if (TIMER_KEYS.has(key) && value > MAX_TIMER_MS) {
      throw new Error(`invalid terminal config ${key}: expected a positive number of milliseconds up to ${MAX_TIMER_MS}, got ${value}`);
    }
  }
  if (typeof resolved.shellPath !== 'string' || resolved.shellPath === '') {
    throw new Error('invalid terminal config shellPath: expected a non-empty string');
  }
  return Object.freeze(resolved);
}
