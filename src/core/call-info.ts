import { bounded } from './describe-value.js';

/**
 * What the backend says about a call (a tenant, its own request id, a
 * user…): string keys to string values, frozen. The host never shows it to
 * the model nor puts it in a command's environment; a tool or an env
 * contributor may (docs/embedding.md, "Call id and metadata").
 */
export type CallMetadata = Readonly<Record<string, string>>;

/** The identity of one call as tools (`currentToolCall()`) and env contributors see it. */
export interface CallInfo {
  /** Unique per call; the host makes one (a UUID) when the backend passes none. */
  readonly callId: string;
  /** The id the backend's own protocol gave the request (the MCP JSON-RPC id); not unique across sessions. */
  readonly requestId?: string;
  readonly metadata: CallMetadata;
}

/** What a backend may pass with a call (`session.call(name, args, { callId, requestId, metadata })`). */
export interface CallInfoOptions {
  readonly callId?: string;
  readonly requestId?: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Limits on what a backend passes: ids and metadata travel with every call, so they stay small. */
export const CALL_INFO_LIMITS = Object.freeze({
  idChars: 128,
  metadataEntries: 32,
  keyChars: 128,
  valueChars: 4096,
  metadataChars: 16384,
});

const EMPTY: CallMetadata = Object.freeze({});
// Letters and digits, then also `.`, `_`, `-` and `/` (an MCP `_meta` key such as `example.com/tenant`).
const KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Checks what a backend passed and returns the call's `CallInfo`, or the
 * problem (`invalid call metadata: …`) the call is refused with. A problem
 * names keys, never values: metadata may be private, and the refusal is
 * model-visible text.
 */
export function checkCallInfo(options: CallInfoOptions, newId: () => string = () => crypto.randomUUID()): CallInfo | { readonly problem: string } {
  const callId = options.callId === undefined ? newId() : options.callId;
  const idProblem = checkId('callId', callId) ?? (options.requestId === undefined ? undefined : checkId('requestId', options.requestId));
  if (idProblem !== undefined) return { problem: idProblem };
  const metadata = checkMetadata(options.metadata);
  if ('problem' in metadata) return metadata;
  return Object.freeze({ callId, ...(options.requestId === undefined ? {} : { requestId: options.requestId }), metadata: metadata.value });
}

function checkId(name: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `invalid ${name}: expected a string, got ${typeName(value)}`;
  if (value === '' || value.length > CALL_INFO_LIMITS.idChars || CONTROL.test(value)) {
    return `invalid ${name}: expected 1 to ${CALL_INFO_LIMITS.idChars} characters without control characters`;
  }
  return undefined;
}

function checkMetadata(metadata: unknown): { readonly value: CallMetadata } | { readonly problem: string } {
  if (metadata === undefined) return { value: EMPTY };
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata) || !isPlain(metadata)) {
    return { problem: `invalid call metadata: expected an object of string values, got ${typeName(metadata)}` };
  }
  const entries = Object.entries(metadata);
  const { metadataEntries, keyChars, valueChars, metadataChars } = CALL_INFO_LIMITS;
  if (entries.length > metadataEntries) return { problem: `invalid call metadata: ${entries.length} entries, at most ${metadataEntries}` };
  let total = 0;
  const copy: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (key.length > keyChars || !KEY.test(key)) {
      return { problem: `invalid call metadata: key ${bounded(JSON.stringify(key))} must be 1 to ${keyChars} letters, digits, ".", "_", "-" or "/", starting with a letter or digit` };
    }
    if (typeof value !== 'string') return { problem: `invalid call metadata: "${key}" must be a string, got ${typeName(value)}` };
    if (value.length > valueChars) return { problem: `invalid call metadata: "${key}" is longer than ${valueChars} characters` };
    if (value.includes('\0')) return { problem: `invalid call metadata: "${key}" contains a NUL character` };
    total += key.length + value.length;
    copy[key] = value;
  }
  if (total > metadataChars) return { problem: `invalid call metadata: ${total} characters in all, at most ${metadataChars}` };
  return { value: Object.freeze(copy) };
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function typeName(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}
