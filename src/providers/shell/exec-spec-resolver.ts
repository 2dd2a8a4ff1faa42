import path from 'node:path';
import { describeValue } from '../../core/describe-value.js';
import type { ExecRequest, ExecSpec, ExecutorConfig } from './shell-executor.js';

/**
 * What `resolveExecSpec` checked, kept on the spec as a hidden property (no
 * `toEqual` or JSON sees it): `run`/`start` trust a spec whose checked
 * fields still hold these values and resolve anything else (a hand-made
 * spec, a copy, one changed since), so every check lives here and runs once
 * per call. `withDshEnv` adds the overlay without losing it.
 */
const CHECKED = Symbol('dsh.checkedExecSpec');

interface Checked {
  readonly command: string;
  readonly workdir: string;
  readonly timeoutMs: number;
  readonly config: ExecutorConfig;
}

/**
 * Fills an `ExecRequest`'s defaults and applies the caps, explicitly, so
 * `run`/`start` never hide them: workdir defaults to `config.cwd`, else the
 * process cwd, and a relative workdir is taken against that default;
 * `timeoutMs` defaults to `config.timeoutMs` and is capped at
 * `config.maxTimeoutMs`. Throws a model-readable Error on bad input.
 */
export function resolveExecSpec(request: ExecRequest, config: ExecutorConfig): ExecSpec {
  if (request === null || typeof request !== 'object') {
    throw new Error('invalid command: expected a non-empty string');
  }
  checkCommand(request.command);
  const base = config.cwd ?? process.cwd();
  const workdir = resolveWorkdir(request.workdir, base);
  const timeoutMs = resolveTimeout(request.timeoutMs, config);
  if (request.stdin !== undefined && typeof request.stdin !== 'string') {
    throw new Error(`invalid stdin: expected a string, got ${describeValue(request.stdin)}`);
  }
  checkEnv('env', request.env);
  checkEnv('dshEnv', request.dshEnv);
  return stamped({ ...request, workdir, timeoutMs }, { command: request.command, workdir, timeoutMs, config });
}

/** `spec` with the managed `DSH_*` overlay (already checked by the env registry), still trusted by `run`/`start`. */
export function withDshEnv(spec: ExecSpec, dshEnv: Readonly<Record<string, string>>): ExecSpec {
  const copy = { ...spec, dshEnv };
  const checked = (spec as { [CHECKED]?: Checked })[CHECKED];
  return checked === undefined ? copy : stamped(copy, checked);
}

function stamped(spec: ExecSpec, checked: Checked): ExecSpec {
  return Object.defineProperty(spec, CHECKED, { value: checked, enumerable: false });
}

/** `spec` as `run`/`start` may use it: as is when `resolveExecSpec` checked it against `config`, else resolved now. */
export function checkedExecSpec(spec: ExecSpec, config: ExecutorConfig): ExecSpec {
  const checked = (spec as { [CHECKED]?: Checked } | null)?.[CHECKED];
  const unchanged =
    checked !== undefined &&
    checked.config === config &&
    checked.command === spec.command &&
    checked.workdir === spec.workdir &&
    checked.timeoutMs === spec.timeoutMs;
  return unchanged ? spec : resolveExecSpec(spec, config);
}

function checkCommand(command: unknown): asserts command is string {
  if (typeof command !== 'string' || command.trim() === '') {
    throw new Error('invalid command: expected a non-empty string');
  }
  // spawn() would throw a TypeError deep inside; say what is wrong instead.
  if (command.includes('\0')) throw new Error('invalid command: contains a NUL character');
}

function checkTimeout(value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new Error(`invalid timeoutMs: expected a positive number, got ${describeValue(value)}`);
  }
  // Timers count whole milliseconds: a smaller timeout would silently become 1 ms.
  if (value < 1) throw new Error(`invalid timeoutMs: expected at least 1 millisecond, got ${describeValue(value)}`);
}

function resolveTimeout(value: unknown, config: ExecutorConfig): number {
  if (value === undefined) return config.timeoutMs;
  checkTimeout(value);
  return Math.min(value, config.maxTimeoutMs);
}

function resolveWorkdir(value: unknown, base: string): string {
  if (value === undefined || value === '') return base;
  if (typeof value !== 'string' || value.includes('\0')) {
    throw new Error(`invalid workdir: expected a path string, got ${describeValue(value)}`);
  }
  return path.resolve(base, value);
}

function checkEnv(name: string, env: unknown): void {
  if (env === undefined) return;
  if (env === null || typeof env !== 'object' || Array.isArray(env)) {
    throw new Error(`invalid ${name}: expected an object of strings, got ${describeValue(env)}`);
  }
  for (const [key, value] of Object.entries(env)) {
    if (key === '' || key.includes('=') || key.includes('\0')) {
      throw new Error(`invalid ${name}: bad variable name ${describeValue(key)}`);
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new Error(`invalid ${name}: value of ${key} must be a string without NUL characters`);
    }
  }
}
