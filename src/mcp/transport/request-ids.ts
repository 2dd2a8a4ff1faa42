import type { RequestId } from '@modelcontextprotocol/server';
import { INVALID_REQUEST, rpcError, type RpcError } from './jsonrpc-checks.js';

/** What a request reusing the id of one still unanswered gets at once (JSON-RPC -32600). */
export function duplicateIdRefusal(id: RequestId): RpcError {
  return rpcError(id, INVALID_REQUEST, `Invalid Request: id ${JSON.stringify(id)} is already used by a request still in flight; send each request with an id of its own`);
}

/**
 * The ids of one connection's requests that are still unanswered. The SDK
 * keys a request's answer (and, over HTTP, the stream it goes to) by its id:
 * a second request under the same id took the first one's place, and the
 * first was never answered. So a request whose id is in flight is refused
 * at once instead; the first keeps its id and gets its answer. An id is free
 * again once answered or cancelled.
 */
export class InFlightIds {
  private readonly ids = new Set<RequestId>();

  /** Takes `id` for a new request; false when a request under it is still in flight. */
  claim(id: RequestId): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    return true;
  }

  has(id: RequestId): boolean {
    return this.ids.has(id);
  }

  /** The request under `id` was answered or cancelled. */
  settle(id: RequestId): void {
    this.ids.delete(id);
  }
}
