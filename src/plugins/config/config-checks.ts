import { checkProtectedPaths } from '../../core/protected-paths.js';
import { resolveResourceLimits } from '../../providers/backends/bwrap/resource-limits.js';
import { resolveWebhookConfig } from '../../providers/policy/approval/webhook/webhook-config.js';

/** A JSON Schema fragment (draft 2020-12), as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

/**
 * One value of a composition file: the loader's check (the reason, or
 * undefined) and the same rule as JSON Schema. Both live together so the
 * shipped schema cannot drift from what the loader accepts.
 */
export interface ConfigValue {
  readonly check: (value: unknown) => string | undefined;
  readonly schema: JsonSchema;
}

const value = (schema: JsonSchema, check: ConfigValue['check']): ConfigValue => ({ check, schema });

export const positiveInt = value({ type: 'integer', minimum: 1 }, (v) =>
  Number.isSafeInteger(v) && (v as number) > 0 ? undefined : 'expected a positive integer',
);
export const nonNegativeInt = value({ type: 'integer', minimum: 0 }, (v) =>
  Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : 'expected 0 or a positive integer',
);
export const string = value({ type: 'string', minLength: 1 }, (v) => (typeof v === 'string' && v !== '' ? undefined : 'expected a non-empty string'));
export const boolean = value({ type: 'boolean' }, (v) => (typeof v === 'boolean' ? undefined : 'expected true or false'));
export const oneOf = (...values: string[]): ConfigValue =>
  value({ enum: values }, (v) => (values.includes(v as string) ? undefined : `expected one of ${values.join(', ')}`));
export const stringList = value({ type: 'array', items: { type: 'string' } }, (v) =>
  Array.isArray(v) && v.every((item) => typeof item === 'string') ? undefined : 'expected a list of strings',
);

export const protectedPathList = value({ type: 'array', items: { type: 'string', minLength: 1 } }, (v) => {
  const checked = checkProtectedPaths(v);
  return 'problem' in checked ? checked.problem : undefined;
});

export const resourceLimits = value(
  {
    type: 'object',
    additionalProperties: false,
    properties: {
      processes: { type: 'integer', minimum: 16, maximum: 4_194_304 },
      memory: { type: ['string', 'integer'], pattern: '^[0-9]+[kmgtKMGT]?$' },
      openFiles: { type: 'integer', minimum: 64, maximum: 1_048_576 },
    },
  },
  (v) => {
    const limits = resolveResourceLimits(v);
    return 'problem' in limits ? `${limits.key} ${limits.problem}` : undefined;
  },
);

const RULE_KEYS = ['match', 'action', 'name'];

export const ruleList = value(
  {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['match', 'action'],
      properties: { match: { type: 'string', pattern: '\\S' }, action: { enum: ['allow', 'ask', 'deny'] }, name: { type: 'string' } },
    },
  },
  (v) => {
    const shape = 'expected a list of { match: <command prefix or /regex/>, action: allow | ask | deny, name? }';
    if (!Array.isArray(v)) return shape;
    for (const [index, rule] of v.entries()) {
      const r = rule as Record<string, unknown> | null;
      if (r === null || typeof r !== 'object' || Array.isArray(r)) return `item ${index}: ${shape}`;
      const unknown = Object.keys(r).filter((key) => !RULE_KEYS.includes(key));
      if (unknown.length > 0) return `item ${index}: unknown key ${unknown[0]} (known: ${RULE_KEYS.join(', ')})`;
      if (typeof r.match !== 'string' || r.match.trim() === '') return `item ${index}: match must be a command prefix or /regex/`;
      if (!['allow', 'ask', 'deny'].includes(r.action as string)) return `item ${index}: action must be one of allow, ask, deny`;
      if (r.name !== undefined && typeof r.name !== 'string') return `item ${index}: name must be a string`;
    }
    return undefined;
  },
);

/** `env:` — contributor name to `DSH_*` variables. */
export const envSection = value(
  {
    type: 'object',
    additionalProperties: {
      type: 'object',
      propertyNames: { pattern: '^DSH_[A-Z0-9_]+$' },
      additionalProperties: { type: 'string' },
    },
  },
  () => undefined,
);

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const webhookSection = value(
  {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'secretFile'],
    properties: { url: { type: 'string', pattern: '^https?://' }, secretFile: { type: 'string', minLength: 1 }, timeoutMs: { type: 'integer', minimum: 1 } },
  },
  (v) => {
    try {
      resolveWebhookConfig(v);
      return undefined;
    } catch (error) {
      return (error as Error).message.replace(/^invalid approval config: webhook\.?/, '').trim();
    }
  },
);
