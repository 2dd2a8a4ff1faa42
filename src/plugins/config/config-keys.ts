import { SANDBOX_MODES } from '../../core/sandbox-mode.js';
import {
  boolean,
  envSection,
  nonNegativeInt,
  oneOf,
  positiveInt,
  protectedPathList,
  resourceLimits,
  ruleList,
  string,
  stringList,
  type ConfigValue,
  webhookSection,
} from './config-checks.js';
import { containerSection, kubernetesSection } from './config-sections.js';

/** A mapping of known keys, each with its check. */
interface ConfigSection {
  readonly keys: Readonly<Record<string, ConfigValue>>;
}

type ConfigEntry = ConfigValue | ConfigSection;

export function isSection(entry: ConfigEntry): entry is ConfigSection {
  return 'keys' in entry;
}

const keys = (entries: Record<string, ConfigValue>): ConfigSection => ({ keys: Object.freeze(entries) });

/**
 * Every key a composition file may carry, with its check: the one table the
 * loader, the JSON Schema (config-schema.ts) and the environment functions'
 * key checks (option-keys.ts) read. docs/configuration.md lists them.
 */
export const CONFIG_KEYS: Readonly<Record<string, ConfigEntry>> = Object.freeze({
  workspace: string,
  dshHome: string,
  logLevel: oneOf('debug', 'info', 'warn', 'error'),
  logFormat: oneOf('text', 'json'),
  shell: oneOf('oneshot', 'persistent', 'both'),
  toolNames: keys({ oneshot: string, persistent: string }),
  executor: keys({
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
  }),
  tasks: keys({ maxConcurrentTasksPerOwner: positiveInt, maxFinishedTasksPerOwner: positiveInt }),
  bash: keys({ enableRunInBackground: boolean, onTimeout: oneOf('promote', 'kill'), promoteAfterMs: nonNegativeInt, onCancel: oneOf('promote', 'kill') }),
  persistent: keys({ backendType: string, timeoutMs: positiveInt, maxOutputChars: positiveInt, description: string, idleCloseMs: nonNegativeInt }),
  env: envSection,
  sandbox: keys({
    mode: oneOf(...SANDBOX_MODES),
    network: boolean,
    fallbackRoot: string,
    bwrapPath: string,
    protectedPaths: protectedPathList,
    limits: resourceLimits,
  }),
  approval: keys({
    policy: oneOf('ask', 'never'),
    maxAuditRecords: positiveInt,
    timeoutMs: positiveInt,
    rules: ruleList,
    defaultAction: oneOf('allow', 'ask', 'deny'),
    answerers: stringList,
    webhook: webhookSection,
  }),
  redact: keys({ values: stringList, patterns: stringList, builtins: boolean, environment: boolean }),
  container: containerSection,
  kubernetes: kubernetesSection,
  audit: keys({ file: string }),
  telemetry: keys({ includeCommand: boolean }),
  serve: keys({ sessionLifetimeMs: nonNegativeInt, console: boolean, operatorTokenFile: string, sharedSessions: boolean }),
});
