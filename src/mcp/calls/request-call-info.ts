import type { ServerContext } from '@modelcontextprotocol/server';
import { checkCallInfo, type CallInfoOptions } from '../../core/call-info.js';

/**
 * The call id, request id and metadata of one `tools/call`: the JSON-RPC id
 * becomes the `requestId` (not the call id: a client reuses ids across its
 * connections and after an answer, while the call id keys audit records,
 * traces and approvals host-wide), and the string entries of the request's
 * `_meta` become the metadata. Left out: `progressToken` and the keys under
 * a prefix MCP reserves (a label `modelcontextprotocol` or `mcp`), which are
 * the protocol's own, and values that are not strings (the protocol's
 * objects); a request id longer than the limit is left out. What a client puts there is its claim, not an authenticated fact.
 */
export function requestCallInfo(ctx: ServerContext, callId: string): CallInfoOptions {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(ctx.mcpReq._meta ?? {})) {
    if (typeof value !== 'string' || key === 'progressToken' || reservedKey(key)) continue;
    metadata[key] = value;
  }
  // An id the call context cannot carry (over the length limit) is the protocol's, not the client's claim: left out, never a refusal.
  const requestId = String(ctx.mcpReq.id);
  const fits = !('problem' in checkCallInfo({ callId, requestId }));
  return { callId, ...(fits ? { requestId } : {}), metadata };
}

function reservedKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  return key.slice(0, slash).split('.').some((label) => label === 'modelcontextprotocol' || label === 'mcp');
}
