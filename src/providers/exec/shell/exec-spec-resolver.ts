import path from 'node:path';
import { describeValue } from '../../../core/describe-value.js';
import { invalidCommand, invalidMilliseconds } from '../../../core/command-argument-rules.js';

/** The request fields checked here (an `ExecRequest`, typed loosely: a hand-made one may hold anything). */
interface Request {
  readonly command: unknown;
  readonly workdir?: unknown;
  readonly timeoutMs?: unknown;
  readonly stdin?: unknown;
  readonly env?: unknown;
  readonly dshEnv?: unknown;
}

/** An executor's defaults and caps (`ExecLimits`). */
interface Limits {
  readonly cwd?: string;
  readonly timeoutMs: number;
  readonly maxTimeoutMs: number;
}

/**
 * Checks a request and fills its defaults, explicitly, so `run`/`start`
 * never hide them: workdir defaults to `limits.cwd`, else the process cwd,
 * and a relative workdir is taken against that default; `timeoutMs`
 * defaults to `limits.timeoutMs` and is capped at `limits.maxTimeoutMs`.
 * Throws a model-readable Error on bad input. Only `ExecSpec.check` calls
 * it: the spec it makes is the proof that it ran.
 */
export function checkExecRequest<R extends Request>(request: R, limits: Limits): R & { workdir: string; timeoutMs: number } {
  if (request === null || typeof request !== 'object') throw new Error(invalidCommand(request));
  checkCommand(request.command);
  const workdir = resolveWorkdir(request.workdir, limits.cwd ?? process.cwd());
  const timeoutMs = resolveTimeout(request.timeoutMs, limits);
  if (request.stdin !== undefined && typeof request.stdin !== 'string') {
    throw new Error(`invalid stdin: expected a string, got ${describeValue(request.stdin)}`);
  }
  checkEnv('env', request.env);
  checkEnv('dshEnv', request.dshEnv);
  return { ...request, workdir, timeoutMs };
}

function checkCommand(command: unknown): asserts command is string {
  const problem = invalidCommand(command);
  if (problem !== undefined) throw new Error(problem);
}

function resolveTimeout(value: unknown, limits: Limits): number {
  if (value === undefined) return limits.timeoutMs;
  const problem = invalidMilliseconds('timeoutMs', value);
  if (problem !== undefined) throw new Error(problem);
  return Math.min(value as number, limits.maxTimeoutMs);
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
