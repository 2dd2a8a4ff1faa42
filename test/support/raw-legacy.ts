// The raw JSON-RPC driver for the 2025 eras (a session opened by `initialize`,
// no per-request envelope): the messages a test writes by hand, for either
// transport (raw-stdio.ts sends them as lines, raw-http.ts as bodies). Key
// order is the one a client writes, so a message's bytes do not depend on
// which builder made it.
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

export type Message = Record<string, unknown>;

/** A request; `params` only when given. */
export function request(id: number | string, method: string, params?: Record<string, unknown>): Message {
  return { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) };
}

/** A notification (no id); `params` only when given. */
export function notification(method: string, params?: Record<string, unknown>): Message {
  return { jsonrpc: '2.0', method, ...(params ? { params } : {}) };
}

/** `initialize` as a client of `protocolVersion` (default: the SDK's newest) with no capabilities. */
export function initialize(id: number | string = 1, protocolVersion: string = LATEST_PROTOCOL_VERSION, clientName = 'raw'): Message {
  return request(id, 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: clientName, version: '1' } });
}

export const INITIALIZE = initialize(1);
export const INITIALIZED = notification('notifications/initialized');

/** A JSON-RPC initialize request body. */
export function initializeBody(id: number | string = 1): string {
  return JSON.stringify(initialize(id));
}

/** A `bash` tools/call; `extra` joins the arguments (run_in_background, timeout_ms, …). */
export function bashCall(id: number, command: string, extra: Record<string, unknown> = {}, description = 'Run a test command'): Message {
  return request(id, 'tools/call', { name: 'bash', arguments: { command, description, ...extra } });
}

/** The text of a tools/call answer's single text block. */
export function resultText(message: Record<string, unknown>): string {
  const result = message.result as { content?: Array<{ text?: string }> } | undefined;
  return result?.content?.[0]?.text ?? JSON.stringify(message);
}
