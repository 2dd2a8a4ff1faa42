import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { lazyModule } from '../../core/lazy-module.js';
import { isRecord } from './config-checks.js';
import { CONFIG_KEYS, isSection } from './config-keys.js';
import type { DshConfig } from './dsh-config.js';

// `require` where it exists: CommonJS jest has no import() without VM modules.
const yaml = lazyModule<typeof import('yaml')>(
  () => require('yaml'),
  () => import('yaml'),
);

/**
 * Reads a YAML or JSON composition file (`.json` is JSON, anything else
 * YAML) and checks it with `validateConfig`. Every problem names the file,
 * the key and the reason: `<file>: <key>: <reason>`.
 */
export async function loadConfigFile(file: string): Promise<DshConfig> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new Error(`${absolute}: cannot read the config file (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  const json = /\.json$/i.test(absolute);
  let data: unknown;
  try {
    data = json ? JSON.parse(text) : (await yaml()).parse(text);
  } catch (error) {
    throw new Error(`${absolute}: not valid ${json ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  return validateConfig(data ?? {}, absolute);
}

/**
 * Checks parsed composition data (from a file, or from your own config
 * system) and returns it as options. Unknown keys are errors: a typo must not
 * fall back to a default. `workspace`, `audit.file` and `approval.webhook.secretFile` are resolved against
 * the directory of `source` (a file path; only named in errors otherwise).
 */
export function validateConfig(data: unknown, source: string): DshConfig {
  const fail = (key: string, reason: string): never => {
    throw new Error(`${source}: ${key}: ${reason}`);
  };
  if (!isRecord(data)) return fail('(top level)', 'expected a mapping of keys');
  for (const [key, value] of Object.entries(data)) {
    const entry = CONFIG_KEYS[key];
    if (entry === undefined) fail(key, `unknown key (known: ${Object.keys(CONFIG_KEYS).join(', ')})`);
    if (key === 'env') {
      checkEnv(value, fail);
      continue;
    }
    if (!isSection(entry!)) {
      const problem = entry!.check(value);
      if (problem) fail(key, problem);
      continue;
    }
    if (!isRecord(value)) fail(key, 'expected a mapping');
    for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>)) {
      const check = entry!.keys[inner];
      if (!check) fail(`${key}.${inner}`, `unknown key (known: ${Object.keys(entry!.keys).join(', ')})`);
      const problem = check!.check(innerValue);
      if (problem) fail(`${key}.${inner}`, problem);
    }
  }
  const config: Record<string, unknown> = { ...data };
  const base = path.dirname(path.resolve(source));
  if (typeof config.workspace === 'string') config.workspace = path.resolve(base, config.workspace);
  const audit = config.audit as { file?: string } | undefined;
  if (audit?.file !== undefined) config.audit = { ...audit, file: path.resolve(base, audit.file) };
  const approval = config.approval as { webhook?: { secretFile: string } } | undefined;
  if (approval?.webhook !== undefined) {
    config.approval = { ...approval, webhook: { ...approval.webhook, secretFile: path.resolve(base, approval.webhook.secretFile) } };
  }
  const serve = config.serve as { operatorTokenFile?: string } | undefined;
  if (serve?.operatorTokenFile !== undefined) config.serve = { ...serve, operatorTokenFile: path.resolve(base, serve.operatorTokenFile) };
  return config as DshConfig;
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
