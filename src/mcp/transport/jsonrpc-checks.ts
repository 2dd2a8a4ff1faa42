import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { PROTO_KEY_STANDIN } from '../../core/proto-key.js';

/*
 * What the wire may carry, checked before the SDK sees a message: the SDK
 * drops whatever its schemas refuse (a batch, `"id": null`, `"jsonrpc":
 * "1.0"`, a line that is not JSON) without an answer, and the client then
 * waits forever. Here each gets its JSON-RPC error, on stdio and HTTP alike.
 */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

type RpcId = string | number | null;

export interface RpcError {
  readonly jsonrpc: '2.0';
  readonly id: RpcId;
  readonly error: { readonly code: number; readonly message: string };
}

/** One checked message: pass it on, or answer it with `error` (`undefined`: a notification or response to drop silently). */
export type Checked = { readonly message: JSONRPCMessage } | { readonly error: RpcError | undefined };

/** Protocol versions whose transport lets a client send a JSON-RPC batch (2025-06-18 dropped batching). */
const BATCH_VERSIONS = new Set(['2025-03-26', '2024-11-05', '2024-10-07']);

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The envelope key a 2026-07-28 request carries its protocol version under. */
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

export function rpcError(id: RpcId, code: number, message: string): RpcError {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

export function batchesAllowed(version: string | undefined): boolean {
  return version !== undefined && BATCH_VERSIONS.has(version);
}

export function batchRefusal(version: string | undefined): RpcError {
  const why = version === undefined ? 'before initialize' : `in protocol version ${version}`;
  return rpcError(null, INVALID_REQUEST, `Invalid Request: JSON-RPC batches are not accepted ${why}`);
}

/** Parses one line or body: `undefined` for text that is not JSON. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

export const PARSE_FAILURE = rpcError(null, PARSE_ERROR, 'Parse error: the message is not valid JSON');

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** True for a request carrying the 2026-07-28 `_meta` envelope (it describes itself: no initialize needed). */
export function isModernRequest(value: unknown): boolean {
  if (!isRecord(value) || !isRecord(value.params) || !isRecord(value.params._meta)) return false;
  return typeof value.params._meta[PROTOCOL_VERSION_KEY] === 'string';
}

/** Checks one parsed JSON-RPC message (not a batch). */
export function checkMessage(value: unknown): Checked {
  if (!isRecord(value)) return { error: rpcError(null, INVALID_REQUEST, 'Invalid Request: a message must be a JSON object') };
  const id = validId(value.id) ? value.id : null;
  const isRequest = 'id' in value && 'method' in value;
  const invalid = (why: string): Checked => ({ error: 'method' in value && !('id' in value) ? undefined : rpcError(id, INVALID_REQUEST, `Invalid Request: ${why}`) });
  if (value.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"');
  if ('id' in value && !validId(value.id)) return { error: rpcError(null, INVALID_REQUEST, 'Invalid Request: "id" must be a string or a number') };
  if ('method' in value) {
    if (typeof value.method !== 'string') return invalid('"method" must be a string');
    if ('params' in value && !isRecord(value.params)) return invalid('"params" must be an object');
    const params = isRequest ? paramsProblem(value.method, value.params) : undefined;
    if (params !== undefined) return { error: rpcError(id, INVALID_PARAMS, `Invalid params: ${params}`) };
    return { message: (value.method === 'tools/call' ? withProtoKeyKept(value) : value) as JSONRPCMessage };
  }
  if ('id' in value && ('result' in value || 'error' in value)) return { message: value as JSONRPCMessage };
  return { error: rpcError(id, INVALID_REQUEST, 'Invalid Request: neither a request, a notification nor a response') };
}

/** A `tools/call` whose arguments hold an own `__proto__` key, with that key renamed so the SDK keeps it (arg-validation.ts). */
function withProtoKeyKept(message: Record<string, unknown>): Record<string, unknown> {
  const params = message.params as Record<string, unknown> | undefined;
  const args = params?.arguments;
  if (!isRecord(args) || !Object.hasOwn(args, '__proto__')) return message;
  const renamed: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(args)) renamed[key === '__proto__' ? PROTO_KEY_STANDIN : key] = item;
  return { ...message, params: { ...params, arguments: renamed } };
}

/** The one-line reason a request's params are wrong, for the methods whose SDK answer is raw schema text. */
function paramsProblem(method: string, params: unknown): string | undefined {
  const record = isRecord(params) ? params : {};
  if (method === 'tools/call') {
    if (typeof record.name !== 'string') return 'tools/call needs "name" (a string, the tool to call)';
    if ('arguments' in record && !isRecord(record.arguments)) return 'tools/call "arguments" must be an object';
  }
  if (method === 'logging/setLevel' && !LOG_LEVELS.includes(record.level as string)) {
    return `logging/setLevel "level" must be one of ${LOG_LEVELS.join(', ')}`;
  }
  return undefined;
}

/**
 * An outgoing error as one line: the SDK puts raw schema-validation text
 * (a multi-line JSON list of issues) into some messages. The client gets the
 * first issue as `Invalid params: <path>: <message>`, and an internal error
 * that is really a schema refusal becomes -32602.
 */
export function oneLineError(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || !isRecord(message.error) || typeof message.error.message !== 'string') return message;
  const text = message.error.message;
  if (!text.includes('\n')) return message;
  const issues = schemaIssues(text);
  const code = issues !== undefined && message.error.code === -32603 ? INVALID_PARAMS : message.error.code;
  const oneLine = issues !== undefined ? `Invalid params: ${issues}` : text.split('\n', 1)[0]!.trim();
  return { ...message, error: { ...message.error, code, message: oneLine } } as JSONRPCMessage;
}

/** The first issue of a JSON list of schema issues inside `text`, as `path: message` (undefined when there is none). */
function schemaIssues(text: string): string | undefined {
  const list = parseJson(text.slice(Math.max(0, text.indexOf('['))))?.value;
  if (!Array.isArray(list) || list.length === 0 || !isRecord(list[0])) return undefined;
  const first = list[0];
  const path = Array.isArray(first.path) ? first.path.join('.') : '';
  const more = list.length > 1 ? ` (and ${list.length - 1} more)` : '';
  return `${path === '' ? '' : `${path}: `}${String(first.message ?? 'does not match its schema')}${more}`;
}
