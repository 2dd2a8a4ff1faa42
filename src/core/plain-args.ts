import { ToolError } from './tool-contract.js';
import { bounded } from './describe-value.js';
import { PROTO_KEY_STANDIN } from './proto-key.js';

/** The argument names a tool accepts: exactly the properties its (adjusted) schema shows. */
export interface KnownArguments {
  readonly tool: string;
  readonly names: readonly string[];
  /** Hidden names the tool refuses with its own reason instead of the unknown-argument message. */
  readonly refusals?: Readonly<Record<string, string>>;
}

/**
 * The model's arguments as a plain object of the names the schema shows.
 * A key the schema does not show is an error naming the valid ones (a
 * misspelt `timeout_ms` must not silently run without a timeout). Throws
 * `ToolError`.
 */
export function toPlainObject(raw: unknown, known: KnownArguments): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ToolError('invalid arguments: expected a JSON object');
  }
  // Only names the schema shows are copied, so `__proto__` or `constructor` never reach the instance.
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    if (!known.names.includes(key)) {
      const refusal = known.refusals && Object.hasOwn(known.refusals, key) ? known.refusals[key] : undefined;
      throw new ToolError(refusal ?? unknownArgumentMessage(key === PROTO_KEY_STANDIN ? '__proto__' : key, known));
    }
    plain[key] = (raw as Record<string, unknown>)[key];
  }
  return plain;
}

function unknownArgumentMessage(key: string, known: KnownArguments): string {
  const valid = known.names.length > 0 ? known.names.join(', ') : '(none)';
  return `unknown argument ${bounded(JSON.stringify(key))} for ${known.tool}; valid arguments: ${valid}`;
}
