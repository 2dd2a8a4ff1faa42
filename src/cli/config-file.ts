import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CliEnvironment } from './cli-environment.js';
import { resolveResourceLimits } from '../providers/sandbox/resource-limits.js';
import { checkProtectedPaths } from '../core/protected-paths.js';
import { containerChecks } from './config-container.js';
import { kubernetesChecks } from './config-kubernetes.js';

type Check = (value: unknown) => string | undefined;

const positiveInt: Check = (v) => (Number.isSafeInteger(v) && (v as number) > 0 ? undefined : 'expected a positive integer');
const nonNegativeInt: Check = (v) => (Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : 'expected 0 or a positive integer');
const string: Check = (v) => (typeof v === 'string' && v !== '' ? undefined : 'expected a non-empty string');
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'expected true or false');
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    values.includes(v as string) ? undefined : `expected one of ${values.join(', ')}`;
const stringList: Check = (v) =>
  Array.isArray(v) && v.every((item) => typeof item === 'string') ? undefined : 'expected a list of strings';

const protectedPathList: Check = (v) => {
  const checked = checkProtectedPaths(v);
  return 'problem' in checked ? checked.problem : undefined;
};

const ruleList: Check = (v) => {
  const shape = 'expected a list of { match: <command prefix or /regex/>, action: allow | ask | deny, name? }';
  if (!Array.isArray(v)) return shape;
  for (const [index, rule] of v.entries()) {
    const r = rule as Record<string, unknown> | null;
    if (r === null || typeof r !== 'object' || Array.isArray(r)) return `item ${index}: ${shape}`;
    const unknown = Object.keys(r).filter((key) => !['match', 'action', 'name'].includes(key));
    if (unknown.length > 0) return `item ${index}: unknown key ${unknown[0]} (known: match, action, name)`;
    if (typeof r.match !== 'string' || r.match.trim() === '') return `item ${index}: match must be a command prefix or /regex/`;
    if (!['allow', 'ask', 'deny'].includes(r.action as string)) return `item ${index}: action must be one of allow, ask, deny`;
    if (r.name !== undefined && typeof r.name !== 'string') return `item ${index}: name must be a string`;
  }
  return undefined;
};

/** Every key a composition file may carry, with its check. */
const SCHEMA: Record<string, Check | Record<string, Check>> = {
  workspace: string,
  dshHome: string,
  logLevel: oneOf('debug', 'info', 'warn', 'error'),
  logFormat: oneOf('text', 'json'),
  shell: oneOf('oneshot', 'persistent', 'both'),
  toolNames: { oneshot: string, persistent: string },
  executor: {
    timeoutMs: positiveInt,
    maxTimeoutMs: positiveInt,
    maxOutputBytes: positiveInt,
    maxSpillBytes: positiveInt,
    maxRetainedSpillBytes: positiveInt,
    graceMs: positiveInt,
    allowEnv: stringList,
    keepSpills: boolean,
    prestart: boolean,
    prestartIdleMs: positiveInt,
  },
  tasks: { maxConcurrentTasksPerOwner: positiveInt, maxFinishedTasksPerOwner: positiveInt },
  bash: { enableRunInBackground: boolean, onTimeout: oneOf('promote', 'kill'), promoteAfterMs: nonNegativeInt },
  persistent: { backendType: string, timeoutMs: positiveInt, maxOutputChars: positiveInt, description: string, idleCloseMs: nonNegativeInt },
  sandbox: {
    mode: oneOf('read-only', 'workspace-write', 'danger-full-access'),
    network: boolean,
    fallbackRoot: string,
    bwrapPath: string,
    protectedPaths: protectedPathList,
    limits: (v) => {
      const limits = resolveResourceLimits(v);
      return 'problem' in limits ? `${limits.key} ${limits.problem}` : undefined;
    },
  },
  approval: {
    policy: oneOf('ask', 'never'),
    maxAuditRecords: positiveInt,
    timeoutMs: positiveInt,
    rules: ruleList,
    defaultAction: oneOf('allow', 'ask', 'deny'),
  },
  redact: { values: stringList, patterns: stringList, builtins: boolean, environment: boolean },
  container: containerChecks,
  audit: { file: string },
  telemetry: { includeCommand: boolean },
  serve: { sessionLifetimeMs: nonNegativeInt },
  kubernetes: kubernetesChecks,
};

/**
 * Reads a YAML or JSON composition file. Every problem names the file, the
 * key and the reason; unknown keys are errors (a typo must not be ignored).
 */
export async function loadConfigFile(file: string): Promise<CliEnvironment> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new Error(`${absolute}: cannot read the config file (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  let data: unknown;
  try {
    data = /\.json$/i.test(absolute) ? JSON.parse(text) : (await import('yaml')).parse(text);
  } catch (error) {
    throw new Error(`${absolute}: not valid ${/\.json$/i.test(absolute) ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  return validateConfig(data ?? {}, absolute);
}

export function validateConfig(data: unknown, source: string): CliEnvironment {
  const fail = (key: string, reason: string): never => {
    throw new Error(`${source}: ${key}: ${reason}`);
  };
  if (!isRecord(data)) fail('(top level)', 'expected a mapping of keys');
  const config = data as Record<string, unknown>;
  for (const [key, value] of Object.entries(config)) {
    const rule = SCHEMA[key];
    if (key === 'env') {
      checkEnv(value, fail);
      continue;
    }
    if (rule === undefined) fail(key, `unknown key (known: ${[...Object.keys(SCHEMA), 'env'].join(', ')})`);
    if (typeof rule === 'function') {
      const problem = rule(value);
      if (problem) fail(key, problem);
      continue;
    }
    if (!isRecord(value)) fail(key, 'expected a mapping');
    for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>)) {
      const check = (rule as Record<string, Check>)[inner];
      if (!check) fail(`${key}.${inner}`, `unknown key (known: ${Object.keys(rule as object).join(', ')})`);
      const problem = check!(innerValue);
      if (problem) fail(`${key}.${inner}`, problem);
    }
  }
  if (typeof config.workspace === 'string') config.workspace = path.resolve(path.dirname(source), config.workspace);
  const audit = config.audit as { file?: string } | undefined;
  if (audit?.file !== undefined) config.audit = { ...audit, file: path.resolve(path.dirname(source), audit.file) };
  return config as CliEnvironment;
}

function checkEnv(value: unknown, fail: (key: string, reason: string) => never): void {
  if (!isRecord(value)) fail('env', 'expected a mapping of contributor name to DSH_* variables');
  for (const [name, vars] of Object.entries(value as Record<string, unknown>)) {
    if (!isRecord(vars)) fail(`env.${name}`, 'expected a mapping of DSH_* names to strings');
    for (const [key, v] of Object.entries(vars as Record<string, unknown>)) {
      if (!/^DSH_[A-Z0-9_]+$/.test(key)) fail(`env.${name}.${key}`, 'names must match DSH_[A-Z0-9_]+');
      if (typeof v !== 'string') fail(`env.${name}.${key}`, 'expected a string value');
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
