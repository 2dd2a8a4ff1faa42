import type { IncomingMessage } from 'node:http';
import { batchesAllowed, batchRefusal, checkMessage, INVALID_REQUEST, PARSE_FAILURE, parseJson, rpcError, type RpcError } from './jsonrpc-checks.js';

/** A POST body read whole: its text, or `undefined` past `limit` bytes (the rest is read and dropped, so the client gets the reply). */
export async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size > limit ? undefined : Buffer.concat(chunks).toString('utf8');
}

/**
 * A POST body checked as JSON-RPC, the same way stdin lines are: invalid
 * JSON, a message that is not a valid request, bad params, or a batch where
 * `batchVersion` (the session's negotiated version; undefined: none or the
 * 2026-07-28 era) allows none are refused with the error to answer (HTTP 400).
 * A batch whose elements are all notifications or responses passes too.
 */
export function checkBody(text: string, batchVersion: string | undefined): { body: unknown } | { refusal: RpcError } {
  const parsed = parseJson(text);
  if (parsed === undefined) return { refusal: PARSE_FAILURE };
  if (!Array.isArray(parsed.value)) {
    const checked = checkMessage(parsed.value);
    if ('error' in checked) return { refusal: checked.error ?? rpcError(null, INVALID_REQUEST, 'Invalid Request: the notification is malformed') };
    return { body: checked.message };
  }
  const items = parsed.value as unknown[];
  if (items.length === 0) return { refusal: rpcError(null, INVALID_REQUEST, 'Invalid Request: an empty batch') };
  if (!batchesAllowed(batchVersion)) return { refusal: batchRefusal(batchVersion) };
  for (const item of items) {
    const checked = checkMessage(item);
    if ('error' in checked) return { refusal: checked.error ?? rpcError(null, INVALID_REQUEST, 'Invalid Request: a notification in the batch is malformed') };
    if ('method' in checked.message && checked.message.method === 'initialize') {
      return { refusal: rpcError(null, INVALID_REQUEST, 'Invalid Request: initialize must not be part of a batch') };
    }
  }
  return { body: items };
}
