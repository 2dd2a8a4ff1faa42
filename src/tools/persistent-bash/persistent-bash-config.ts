import type { ServiceIdentifier } from 'inversify';
import { mergeConfig } from '../../core/config-merge.js';
import { MAX_TIMER_MS } from '../../core/timer.js';

/** Settings of the persistent `bash` tool; every field optional in config. */
export interface PersistentBashConfig {
  /** The terminal backend type to open (`shell`: the bash PTY backend). */
  readonly backendType: string;
  /** Per-call limit; a command still running then is killed with its shell. */
  readonly timeoutMs: number;
  /** Characters of one call's output shown to the model (the beginning). */
  readonly maxOutputChars: number;
  /** The tool description the model sees. */
  readonly description: string;
  /**
   * A shell with no call for this long is closed (its process gone, so a
   * host nobody disposed lets node exit); the next call says so and starts
   * a fresh one. 0: never.
   */
  readonly idleCloseMs: number;
}

export const PersistentBashConfig: ServiceIdentifier<Partial<PersistentBashConfig>> =
  Symbol.for('dsh.PersistentBashConfig');

function defaultPersistentBashDescription(maxOutputChars: number): string {
  return (
    'Runs a command in your persistent bash shell (one per session): the working directory, exported variables, ' +
    'functions and background jobs carry over between calls, and calls run one at a time in order. ' +
    `Output beyond ${maxOutputChars} characters is clipped (the beginning is kept). ` +
    "A command that waits for terminal input returns early; your next call's text is then sent to it as input."
  );
}

const DEFAULTS = Object.freeze({ backendType: 'shell', timeoutMs: 300_000, maxOutputChars: 16_000, description: undefined, idleCloseMs: 600_000 });

/**
 * Fills defaults (through the shared merge: an unknown key fails; the
 * description follows `maxOutputChars`) and rejects nonsense at composition time.
 */
export function resolvePersistentBashConfig(config: Partial<PersistentBashConfig> = {}): PersistentBashConfig {
  const merged = mergeConfig('persistent bash', DEFAULTS, config) as Partial<PersistentBashConfig>;
  const { backendType, timeoutMs, maxOutputChars } = merged as PersistentBashConfig;
  for (const [key, value] of [['timeoutMs', timeoutMs], ['maxOutputChars', maxOutputChars]] as const) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new Error(`invalid persistent bash config ${key}: expected a positive number, got ${String(value)}`);
    }
  }
  if (timeoutMs > MAX_TIMER_MS) {
    throw new Error(
      `invalid persistent bash config timeoutMs: expected a positive number of milliseconds up to ${MAX_TIMER_MS}, got ${timeoutMs}`,
    );
  }
  const { idleCloseMs } = merged as PersistentBashConfig;
  if (typeof idleCloseMs !== 'number' || !Number.isInteger(idleCloseMs) || idleCloseMs < 0 || idleCloseMs > MAX_TIMER_MS) {
    throw new Error(
      `invalid persistent bash config idleCloseMs: expected 0 (never) or milliseconds up to ${MAX_TIMER_MS}, got ${String(idleCloseMs)}`,
    );
  }
  if (typeof backendType !== 'string' || backendType === '') {
    throw new Error('invalid persistent bash config backendType: expected a non-empty string');
  }
  const description = merged.description ?? defaultPersistentBashDescription(maxOutputChars);
  return Object.freeze({ backendType, timeoutMs, maxOutputChars: Math.floor(maxOutputChars), description, idleCloseMs });
}
