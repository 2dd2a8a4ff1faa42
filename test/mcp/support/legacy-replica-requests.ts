// Raw 2025-era requests to one replica of a shared-sessions test, and the answer in a reply.
import { rawRequest, type RawReply } from '../../support/raw-http.js';
import type { Message } from '../../support/raw-legacy.js';

/** POSTs `body` to `url` with `token`; with `session`, inside that Mcp-Session-Id at its protocol version. */
export function postAs(url: URL, token: string, body: Message, session?: { readonly id: string; readonly version: string }): Promise<RawReply> {
  return rawRequest(url, {
    headers: { authorization: `Bearer ${token}`, ...(session === undefined ? {} : { 'mcp-session-id': session.id, 'mcp-protocol-version': session.version }) },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC answer in a reply (a JSON body or an SSE stream). */
export function answerIn(reply: RawReply): Message {
  const text = reply.body.trimStart();
  if (text.startsWith('{')) return JSON.parse(text) as Message;
  const data = text.split('\n').filter((line) => line.startsWith('data:') && line.length > 5);
  if (data.length === 0) throw new Error(`no answer in ${reply.status} ${reply.body}`);
  return JSON.parse(data.at(-1)!.slice(5)) as Message;
}
